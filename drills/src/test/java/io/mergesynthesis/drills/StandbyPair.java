package io.mergesynthesis.drills;

import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A primary and a streaming standby of it, two real PostgreSQL servers on loopback, with what a failover needs:
 * the primary crashed (immediate shutdown, as when its host dies: nothing more is sent to the standby) and the
 * standby promoted.
 *
 * <p>The standby starts from a copy of the primary's data directory taken while the primary is cleanly stopped,
 * which is what a base backup gives: same system, same timeline, everything up to the shutdown checkpoint. (The
 * server binaries the drills run carry no {@code pg_basebackup}, and the distribution's belongs to an older
 * major version, which cannot back up a newer server.) It then streams from the primary as {@code standby}.
 *
 * <p>With {@code synchronous}, the primary runs {@code synchronous_standby_names = 'standby'}: a commit that
 * waits for its WAL to be flushed (the server's default, {@code synchronous_commit = on}) returns only once the
 * standby has it. The setting is given on the primary's command line, not in its files, so that the promoted
 * standby does not wait for a standby of its own that does not exist.
 */
final class StandbyPair implements AutoCloseable {

    static final String STANDBY_NAME = "standby";

    private final DrillDatabase primary;
    private final DrillDatabase standby;
    private final Map<String, String> settings;
    private boolean primaryCrashed;
    private long pausedSender;

    private StandbyPair(DrillDatabase primary, DrillDatabase standby, Map<String, String> settings) {
        this.primary = primary;
        this.standby = standby;
        this.settings = settings;
    }

    static StandbyPair start(String drill, boolean synchronous) {
        Map<String, String> common = new LinkedHashMap<>();
        // Durable commits, as any production primary runs; DrillDatabase turns them off by default.
        common.put("synchronous_commit", "on");
        common.put("wal_level", "replica");
        common.put("max_wal_senders", "4");
        common.put("hot_standby", "on");
        Map<String, String> primarySettings = new LinkedHashMap<>(common);
        if (synchronous) {
            primarySettings.put("synchronous_standby_names", STANDBY_NAME);
        }
        DrillDatabase primary = DrillDatabase.start(drill, primarySettings);
        try {
            Path standbyData = Files.createTempDirectory(primary.dataDirectory().getParent(), "standby");
            primary.stop();
            copyTree(primary.dataDirectory(), standbyData);
            Files.writeString(standbyData.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=localhost port="
                    + primary.port() + " user=" + primary.user() + " application_name=" + STANDBY_NAME + "'\n",
                    StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            Files.createFile(standbyData.resolve("standby.signal"));
            primary.startServer();
            DrillDatabase standby = DrillDatabase.startOn(standbyData, common);
            StandbyPair pair = new StandbyPair(primary, standby, common);
            pair.awaitStreaming(synchronous ? "sync" : "async", Duration.ofSeconds(30));
            return pair;
        } catch (IOException e) {
            primary.close();
            throw new UncheckedIOException("cannot make the standby", e);
        }
    }

    DrillDatabase primary() {
        return primary;
    }

    DrillDatabase standby() {
        return standby;
    }

    /** Both servers, primary first, for a driver to find the primary among ({@code targetServerType=primary}). */
    String multiHostUrl(String parameters) {
        return "jdbc:postgresql://localhost:" + primary.port() + ",localhost:" + standby.port() + "/postgres?"
                + parameters;
    }

    /** What the primary says of its standby: {@code state/sync_state}, e.g. {@code streaming/sync}. */
    String replicationState() {
        List<String[]> rows = primary.rows("SELECT state, sync_state FROM pg_stat_replication"
                + " WHERE application_name = '" + STANDBY_NAME + "'");
        return rows.isEmpty() ? "none" : rows.get(0)[0] + "/" + rows.get(0)[1];
    }

    private void awaitStreaming(String syncState, Duration timeout) {
        Wait.forValue("the standby streaming (" + syncState + ")", timeout, Duration.ofMillis(100),
                this::replicationState, ("streaming/" + syncState)::equals);
    }

    /**
     * Immediate shutdown of the primary (SIGQUIT to its postmaster): every backend quits at once, nothing is
     * written or sent any more, and on its next start the server would run crash recovery.
     */
    void crashPrimary() {
        try {
            long pid = Long.parseLong(Files.readAllLines(primary.dataDirectory().resolve("postmaster.pid"),
                    StandardCharsets.US_ASCII).get(0).trim());
            signal(pid, "-QUIT");
            if (pausedSender > 0) {
                // Stopped, it would not act on its SIGQUIT; killed, it sends nothing more.
                signal(pausedSender, "-KILL");
                pausedSender = 0;
            }
            ProcessHandle.of(pid).ifPresent(postmaster -> postmaster.onExit().orTimeout(30, TimeUnit.SECONDS)
                    .join());
            primaryCrashed = true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot crash the primary", e);
        }
    }

    /**
     * Freezes the primary's WAL sender (SIGSTOP), as a slow or congested link would: the primary goes on writing
     * WAL, which no longer reaches the standby, and with synchronous replication its commits wait for the
     * standby's confirmation. (Freezing the standby's receiver instead would not do: what the sender had
     * written into the socket would still arrive once the receiver ran again.) {@link #crashPrimary} kills the
     * frozen sender with the rest of the primary, before it sends anything more.
     */
    void pauseStreaming() {
        pausedSender = primary.count("SELECT pid FROM pg_stat_replication WHERE application_name = '"
                + STANDBY_NAME + "'");
        signal(pausedSender, "-STOP");
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal process " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Promotes the standby with {@code pg_promote()}, the SQL form of {@code pg_ctl promote}, and waits for it. */
    void promoteStandby() {
        String promoted = standby.text("SELECT pg_promote(true, 30)::text");
        if (!"true".equals(promoted)) {
            throw new IllegalStateException("the standby was not promoted within 30 s");
        }
    }

    /**
     * Starts the crashed primary's data again on a port of its own, out of every replica's reach, for reading
     * what it had committed; the caller closes it.
     */
    DrillDatabase reopenOldPrimary() {
        if (!primaryCrashed) {
            throw new IllegalStateException("the primary was not crashed");
        }
        stopQuietly(primary);
        primaryCrashed = false;
        return DrillDatabase.startOn(primary.dataDirectory(), settings);
    }

    @Override
    public void close() {
        stopQuietly(standby);
        stopQuietly(primary);
    }

    private static void stopQuietly(DrillDatabase database) {
        try {
            database.stop();
        } catch (RuntimeException e) {
            // Already gone (crashed): there is nothing left to stop.
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : paths.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                String name = source.getFileName().toString();
                if (name.equals("postmaster.pid") || name.equals("postmaster.opts")) {
                    continue;
                }
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
