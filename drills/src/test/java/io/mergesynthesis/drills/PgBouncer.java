package io.mergesynthesis.drills;

import io.mergesynthesis.harness.ServiceProcess;
import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (the distribution's {@code pgbouncer}) in transaction mode in front of a drill's database, on a
 * loopback port, with its ini and user list generated into a directory of its own. Clients log in to it with
 * SCRAM and a password made up for the run; it reaches PostgreSQL as the superuser, whom the drill's server
 * trusts on loopback.
 *
 * <p>PgBouncer will not run as root; as root it is started in a user namespace of its own ({@code unshare -U}),
 * where it is nobody, which is how the embedded PostgreSQL runs as root too.
 */
final class PgBouncer implements AutoCloseable {

    /** The one database PgBouncer serves: the drill server's database of the same name. */
    static final String DATABASE = "postgres";
    private static final List<Path> WELL_KNOWN = List.of(Path.of("/usr/sbin/pgbouncer"),
            Path.of("/usr/bin/pgbouncer"), Path.of("/usr/local/bin/pgbouncer"));
    private static final Path UNSHARE = Path.of("/usr/bin/unshare");

    private final Process process;
    private final int port;
    private final String password;
    private final Path log;
    private final Path configDirectory;
    private final String user;

    private PgBouncer(Process process, int port, String user, String password, Path log, Path configDirectory) {
        this.process = process;
        this.user = user;
        this.port = port;
        this.password = password;
        this.log = log;
        this.configDirectory = configDirectory;
    }

    /** Where the {@code pgbouncer} binary is, if it is installed. */
    static Optional<Path> binary() {
        return WELL_KNOWN.stream().filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts PgBouncer in transaction mode in front of {@code database}, with at most {@code serverConnections}
     * connections to PostgreSQL, and waits until it accepts connections.
     *
     * @param logDirectory where its log goes
     */
    static PgBouncer start(DrillDatabase database, int serverConnections, Path logDirectory) {
        Path binary = binary().orElseThrow(() -> new IllegalStateException("pgbouncer is not installed"));
        try {
            // Readable by nobody, whom PgBouncer is when started as root; the password is the run's own.
            Path dir = Files.createTempDirectory("drill-pgbouncer", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwxr-xr-x")));
            byte[] secret = new byte[16];
            new SecureRandom().nextBytes(secret);
            String password = HexFormat.of().formatHex(secret);
            int port = ServiceProcess.freePort();
            Path users = readable(dir.resolve("userlist.txt"),
                    "\"" + database.user() + "\" \"" + password + "\"\n");
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("listen_addr", "127.0.0.1");
            settings.put("listen_port", Integer.toString(port));
            settings.put("unix_socket_dir", "");
            settings.put("auth_type", "scram-sha-256");
            settings.put("auth_file", users.toString());
            settings.put("pool_mode", "transaction");
            settings.put("default_pool_size", Integer.toString(serverConnections));
            settings.put("max_client_conn", "500");
            // The JDBC driver sends it at login; PgBouncer refuses parameters it does not know unless told.
            settings.put("ignore_startup_parameters", "extra_float_digits");
            StringBuilder ini = new StringBuilder("[databases]\n")
                    .append(DATABASE).append(" = host=127.0.0.1 port=").append(database.port())
                    .append(" dbname=").append(DATABASE).append("\n\n[pgbouncer]\n");
            settings.forEach((name, value) -> ini.append(name).append(" = ").append(value).append('\n'));
            Path config = readable(dir.resolve("pgbouncer.ini"), ini.toString());

            List<String> command = new ArrayList<>();
            if ("root".equals(System.getProperty("user.name")) && Files.isExecutable(UNSHARE)) {
                command.addAll(List.of(UNSHARE.toString(), "-U"));
            }
            command.addAll(List.of(binary.toString(), config.toString()));
            Files.createDirectories(logDirectory);
            Path log = logDirectory.resolve("pgbouncer.log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
            PgBouncer bouncer = new PgBouncer(process, port, database.user(), password, log, dir);
            bouncer.awaitListening(Duration.ofSeconds(15));
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start pgbouncer", e);
        }
    }

    private static Path readable(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        return file;
    }

    private void awaitListening(Duration timeout) {
        boolean listening = Wait.holdsWithin("pgbouncer listening on port " + port, timeout, Duration.ofMillis(100),
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("pgbouncer exited with status " + process.exitValue() + ": "
                                + logText());
                    }
                    try (Socket socket = new Socket()) {
                        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                        return true;
                    } catch (IOException notYet) {
                        return false;
                    }
                });
        if (!listening) {
            throw new IllegalStateException("pgbouncer did not listen within " + timeout.toSeconds() + " s: "
                    + logText());
        }
    }

    /** The JDBC URL of the pooled database. */
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    String password() {
        return password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), login());
    }

    private Properties login() {
        Properties login = new Properties();
        login.setProperty("user", user);
        login.setProperty("password", password);
        return login;
    }

    /** What PgBouncer has logged. */
    String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(configDirectory)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
            Files.delete(configDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove pgbouncer's configuration", e);
        }
    }
}
