package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;

/**
 * More replicas than the database has connections for. PostgreSQL gets {@value #MAX_CONNECTIONS} connection slots
 * (none reserved: the replicas log in as the superuser, so reserved slots would be theirs anyway), and four
 * replicas whose pools may grow to {@value #POOL_MAX} connections each, plus one listening connection each.
 *
 * <p>First the start: the drill holds every free slot while the replicas launch, so each meets "too many
 * clients" at its first connection. They must wait, retry and start once slots free, not exit. Then the work:
 * with the slots back, the replicas' pools start with more connections together than there are, and an admin
 * paging through the inbox on each replica makes the pools grow, so claims, reads and stores keep meeting a
 * full server. Every conflict must still be merged exactly once, with no marker and no replica lost.
 */
@Tag("drill")
class ConnectionStarvationDrill {

    private static final String NAME = "connection-starvation";
    private static final int MAX_CONNECTIONS = 20;
    private static final int REPLICAS = 4;
    private static final int WORKERS = 4;
    private static final int POOL_MAX = 10;
    private static final int POOL_INITIAL = 4;
    private static final int CONFLICTS = 1200;
    private static final int BATCH = 100;
    private static final String TOO_MANY = "too many clients";
    /** Inbox readers per replica: API requests that want connections of their own while the workers drain. */
    private static final int READERS = 1;
    private static final UUID ORG = UUID.randomUUID();

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void replicasShareTooFewConnectionsAndFinishEverything() throws Exception {
        DrillReport report = new DrillReport(NAME);
        try (DrillDatabase database = DrillDatabase.start(NAME, Map.of(
                "max_connections", Integer.toString(MAX_CONNECTIONS),
                "superuser_reserved_connections", "0"))) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
            Map<String, String> settings = new LinkedHashMap<>(calls.setting());
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            settings.put("synthesis.faults.latency", "20ms");
            settings.put("synthesis.shutdownGrace", "5s");
            settings.put("database.maxSize", Integer.toString(POOL_MAX));
            settings.put("database.minSize", Integer.toString(POOL_INITIAL));
            settings.put("database.initialSize", Integer.toString(POOL_INITIAL));
            // The product's default wait is 60 s; starting four JVMs on two shared cores can take a good part of
            // that before the first of them even tries to connect, so the drill allows more.
            settings.put("databaseStartupWait", "120s");
            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings));
            }
            report.line(REPLICAS + " replicas x " + WORKERS + " workers, pools of " + POOL_INITIAL + " to "
                    + POOL_MAX + " connections plus a listener each (up to " + REPLICAS * (POOL_MAX + 1)
                    + " wanted), max_connections " + MAX_CONNECTIONS + " with none reserved, " + CONFLICTS
                    + " conflicts");

            // The drill's own connection to watch through, taken before the replicas can fill the server.
            try (Connection monitor = database.connect()) {
                List<Connection> squatters = new ArrayList<>();
                try {
                    long startedLaunching = System.nanoTime();
                    fillEverySlot(database, monitor, squatters);
                    report.line("the drill holds " + squatters.size() + " connections; the server is full");
                    replicas.forEach(Replica::launch);
                    Wait.holdsWithin("every replica to meet the full server", Duration.ofSeconds(90), () -> {
                        assertThat(replicas).as("replicas alive while the server is full")
                                .allMatch(Replica::isAlive);
                        return replicas.stream().allMatch(r -> r.logSinceStart().contains(TOO_MANY));
                    });
                    assertThat(replicas).as("every replica met a full server at its start")
                            .allMatch(r -> r.logSinceStart().contains(TOO_MANY));
                    // That a replica keeps waiting rather than exits shows in its log: it tries again, and meets
                    // the full server again, while it lives on.
                    Wait.until("every replica to meet the full server twice more", Duration.ofSeconds(60),
                            () -> replicas.stream().allMatch(r -> meetings(r.logSinceStart()) >= 3));
                    assertThat(replicas).as("replicas still waiting, not exited").allMatch(Replica::isAlive);
                    report.line("every replica met 'too many clients' at its start and kept waiting; releasing "
                            + "the drill's connections after " + seconds(System.nanoTime() - startedLaunching)
                            + " s");
                    long released = System.nanoTime();
                    closeAll(squatters);
                    for (Replica replica : replicas) {
                        replica.awaitHealthy(Duration.ofSeconds(120));
                    }
                    report.figure("all replicas healthy after the release in",
                            seconds(System.nanoTime() - released) + " s");
                } finally {
                    closeAll(squatters);
                }

                String platform = ApiClient.mintToken(monitor, "platform", null);
                String inbox = ApiClient.mintToken(monitor, "org_admin", ORG);
                long startedIngest = System.nanoTime();
                InboxReaders readers = new InboxReaders(replicas, inbox);
                int ingestRetries;
                long peak = 0;
                try {
                    ingestRetries = ingest(platform, replicas);
                    report.line("ingested " + CONFLICTS + " conflicts in " + seconds(System.nanoTime() - startedIngest)
                            + " s, " + done(monitor) + " merged meanwhile");
                    long[] nextProgress = {System.nanoTime() + Duration.ofSeconds(10).toNanos()};
                    long[] most = {0};
                    Wait.holdsWithin("every conflict merged", Duration.ofSeconds(120), () -> {
                        long merged = done(monitor);
                        most[0] = Math.max(most[0], clientConnections(monitor));
                        if (System.nanoTime() > nextProgress[0]) {
                            report.line("merged so far: " + merged);
                            nextProgress[0] += Duration.ofSeconds(10).toNanos();
                        }
                        return merged >= CONFLICTS;
                    });
                    peak = most[0];
                } finally {
                    readers.stop();
                }
                long drained = System.nanoTime();
                report.figure("ingest requests answered with an error and sent again", ingestRetries);
                report.figure("inbox reads meanwhile, by status", readers.statuses());
                report.figure("time to drain (from the first ingest request)", seconds(drained - startedIngest)
                        + " s");
                report.figure("client connections at the server, peak sampled while draining",
                        peak + " of " + MAX_CONNECTIONS);

                // What the replicas logged about it, split by who met the full server.
                long workerTooMany = 0;
                for (Replica replica : replicas) {
                    LogExcerpt log = new LogExcerpt(replica.name(), replica.logSinceStart());
                    List<String> warnings = log.warningsAndErrors();
                    long atStart = warnings.stream().filter(l -> l.contains(TOO_MANY) && l.contains("DatabaseWait"))
                            .count();
                    long worker = warnings.stream().filter(l -> l.contains(TOO_MANY) && l.contains(".worker.")).count();
                    long api = warnings.stream().filter(l -> l.contains("LoggingExceptionMapper")).count();
                    workerTooMany += worker;
                    report.line(replica.name() + ": '" + TOO_MANY + "' met at the start " + atStart + " times "
                            + "(one warning per try), by the workers in " + worker + " warnings (one per run of "
                            + "failures, at most one per 30 s); " + api + " API requests failed with a logged error");
                    report.line("log, " + log.summary(6));
                }
                report.figure("merged", done(monitor));
                report.figure("stamped synthesis_max_attempts_exceeded", DrillDatabase.count(monitor,
                        "SELECT count(*) FROM policy_conflicts WHERE failure_marker IS NOT NULL"));
                report.figure("synthesizer calls", calls.calls());
                report.figure("durable attempts per conflict, max", DrillDatabase.count(monitor,
                        "SELECT coalesce(max(attempts), 0) FROM policy_conflicts"));

                assertThat(workerTooMany).as("warnings of workers that met a full server while working").isPositive();
                // A read that meets the full server is told to retry (503), never answered as a server fault.
                assertThat(readers.statuses()).as("inbox reads by status").doesNotContainKey(500);
                assertThat(replicas).as("replicas alive at the end").allMatch(Replica::isAlive);
                for (Replica replica : replicas) {
                    assertThat(replica.logSinceStart()).as(replica.name() + ": a worker died")
                            .doesNotContain("failed outside any attempt");
                }
                assertThat(done(monitor)).as("conflicts merged").isEqualTo(CONFLICTS);
                assertThat(DrillDatabase.count(monitor, "SELECT count(*) FROM policy_conflicts "
                        + "WHERE failure_marker IS NOT NULL")).as("conflicts stamped with the marker").isZero();
                assertThat(DrillDatabase.count(monitor, "SELECT count(*) FROM conflict_events "
                        + "WHERE event_type = 'merge_synthesized'")).as("merge_synthesized events")
                        .isEqualTo(CONFLICTS);
                assertThat(DrillDatabase.count(monitor, "SELECT count(DISTINCT conflict_id) FROM conflict_events "
                        + "WHERE event_type = 'merge_synthesized'")).as("conflicts with a merge event")
                        .isEqualTo(CONFLICTS);
                assertThat(calls.callsPerConflict()).as("synthesizer calls per conflict")
                        .hasSize(CONFLICTS)
                        .allSatisfy((conflict, count) -> assertThat(count).isBetween(1, 2));
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /** Opens connections until the server refuses one, keeping them all. */
    private static void fillEverySlot(DrillDatabase database, Connection monitor, List<Connection> held) {
        long free = MAX_CONNECTIONS - clientConnections(monitor);
        for (int i = 0; i < free; i++) {
            try {
                held.add(database.connect());
            } catch (SQLException e) {
                assertThat(e.getMessage()).as("why the server refused the drill a connection").contains(TOO_MANY);
                return;
            }
        }
    }

    /** Sends the conflicts in batches, round robin; a batch answered with an error is sent again. */
    private static int ingest(String token, List<Replica> replicas) throws Exception {
        UUID org = ORG;
        int retries = 0;
        for (int start = 0; start < CONFLICTS; start += BATCH) {
            List<String> items = new ArrayList<>();
            for (int n = start; n < start + BATCH; n++) {
                items.add(ApiClient.conflictJson(org, "jira.create_issue", n));
            }
            String body = "{\"conflicts\": [" + String.join(",", items) + "]}";
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int attempt = 0; ; attempt++) {
                Replica replica = replicas.get((start / BATCH + attempt) % replicas.size());
                HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), token, body);
                if (response.statusCode() == 200) {
                    break;
                }
                assertThat(System.nanoTime()).as("batch at " + start + " still refused: " + response.statusCode()
                        + " " + response.body()).isLessThan(deadline);
                retries++;
                // A client's pause before it sends the refused batch again: the drill is that client.
                Thread.sleep(250);
            }
        }
        return retries;
    }

    /**
     * Admins paging through their inbox on every replica while the workers drain, as fast as answers come: each
     * request needs a connection from its replica's pool, so the pools grow towards their maximum together.
     */
    private static final class InboxReaders {
        private final List<Thread> threads = new ArrayList<>();
        private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        private volatile boolean running = true;

        InboxReaders(List<Replica> replicas, String token) {
            for (Replica replica : replicas) {
                for (int i = 0; i < READERS; i++) {
                    Thread thread = new Thread(() -> {
                        while (running) {
                            int status;
                            try {
                                status = ApiClient.get(replica.api("/v1/conflicts?limit=50"), token).statusCode();
                            } catch (IOException e) {
                                status = -1;
                            } catch (InterruptedException e) {
                                return;
                            }
                            statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                        }
                    }, "inbox-reader-" + replica.name() + "-" + i);
                    thread.setDaemon(true);
                    thread.start();
                    threads.add(thread);
                }
            }
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(40).toMillis());
            }
        }

        Map<Integer, Integer> statuses() {
            Map<Integer, Integer> counts = new TreeMap<>();
            statuses.forEach((status, count) -> counts.put(status, count.get()));
            return counts;
        }
    }

    private static long done(Connection monitor) {
        return DrillDatabase.count(monitor, "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'");
    }

    private static long clientConnections(Connection monitor) {
        return DrillDatabase.count(monitor,
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'");
    }

    private static void closeAll(List<Connection> connections) {
        for (Connection connection : connections) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // the server may have dropped it already
            }
        }
        connections.clear();
    }

    private static String seconds(long nanos) {
        return String.format("%.2f", nanos / 1e9);
    }

    /** How many times a replica's log says it met the full server. */
    private static long meetings(String log) {
        return log.lines().filter(line -> line.contains(TOO_MANY)).count();
    }
}
