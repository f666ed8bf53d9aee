package io.mergesynthesis.service.db;

import io.dropwizard.db.DataSourceFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL run from the jar. It is the product's zero-setup database ({@link #startOrAttach}), keeping
 * its data in a directory so that a restart finds everything where it was, and the one way the tests, the
 * benchmark and the drills start a server of their own ({@link #builder()}).
 *
 * <p>A server with a data directory of the caller's keeps that directory and its port across {@link #stop()} and
 * {@link #start()}, so that a restart looks to clients like one of a real server. Without one, the server lives
 * in a temporary directory that goes away when it stops (also when the JVM ends without stopping it).
 */
public final class EmbeddedDatabase implements AutoCloseable {

    public static final String SUPERUSER = "postgres";
    /** The database every PostgreSQL server has, for maintenance work such as creating the others. */
    public static final String MAINTENANCE_DATABASE = "postgres";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);

    private final Path dataDirectory;
    private final boolean temporary;
    private final Map<String, String> settings;
    private final Duration startupWait;
    private final String databaseName;
    private int port;
    private EmbeddedPostgres server;

    private EmbeddedDatabase(Builder builder) throws IOException {
        this.temporary = builder.dataDirectory == null;
        // Made here rather than by the library, so that its path is known (the benchmark reads the server's pid
        // from it); the library still removes it, since it is started with a clean data directory.
        this.dataDirectory = temporary ? Files.createTempDirectory("embedded-postgres") : builder.dataDirectory;
        this.settings = new LinkedHashMap<>(builder.settings);
        this.startupWait = builder.startupWait;
        this.databaseName = builder.databaseName;
        this.port = builder.port;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How the server is to run: all optional, a temporary server on a free port by default. */
    public static final class Builder {

        private Path dataDirectory;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private Duration startupWait;
        private String databaseName = MAINTENANCE_DATABASE;
        private int port;

        private Builder() {
        }

        /** Keeps the data in {@code directory} (made by {@code initdb} when it holds none yet), across restarts. */
        public Builder dataDirectory(Path directory) {
            this.dataDirectory = directory.toAbsolutePath();
            return this;
        }

        /** Listens on {@code port}; 0, the default, takes a free one and keeps it across restarts. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** One server setting ({@code max_connections}, {@code fsync}, ...); later calls win. */
        public Builder setting(String name, String value) {
            settings.put(name, value);
            return this;
        }

        public Builder settings(Map<String, String> values) {
            settings.putAll(values);
            return this;
        }

        /** How long to wait for the server to accept connections; the library's default when not set. */
        public Builder startupWait(Duration wait) {
            this.startupWait = wait;
            return this;
        }

        /** The database {@link #jdbcUrl()} and {@link #configure} name, created when missing. */
        public Builder databaseName(String name) {
            this.databaseName = name;
            return this;
        }

        public EmbeddedDatabase start() throws IOException {
            EmbeddedDatabase database = new EmbeddedDatabase(this);
            database.start();
            database.createDatabaseIfMissing(databaseName);
            return database;
        }
    }

    /** Starts the embedded server, or attaches to one already running on the configured port. */
    public static EmbeddedDatabase startOrAttach(EmbeddedDatabaseFactory settings) throws IOException {
        File dataDirectory = new File(settings.getDataDirectory()).getAbsoluteFile();
        Builder builder = builder()
                .dataDirectory(dataDirectory.toPath())
                .port(settings.getPort())
                .databaseName(settings.getDatabaseName())
                .setting("listen_addresses", "localhost")
                .setting("max_connections", "300");
        if (answers(settings.getPort())) {
            // Another process (the server, while a command runs) owns the data directory: use its server.
            LOG.info("Embedded PostgreSQL already running on localhost:{}, attaching to it", settings.getPort());
            EmbeddedDatabase attached = new EmbeddedDatabase(builder);
            attached.createDatabaseIfMissing(settings.getDatabaseName());
            return attached;
        }
        LOG.info("Starting embedded PostgreSQL on localhost:{} with data in {}", settings.getPort(), dataDirectory);
        return builder.start();
    }

    /**
     * Starts the server: the first time, or again after {@link #stop()} on the same port and data directory. A
     * server that was never given a data directory starts empty again.
     */
    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("the embedded PostgreSQL is already running on port " + port);
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(temporary);
        if (port != 0) {
            builder.setPort(port);
        }
        if (startupWait != null) {
            builder.setPGStartupWait(startupWait);
        }
        settings.forEach(builder::setServerConfig);
        server = builder.start();
        port = server.getPort();
    }

    /**
     * Stops the server (fast shutdown: open connections are cut). A data directory of the caller's stays for
     * {@link #start()}; a temporary one is removed. Does nothing when the server is not running, or when this
     * process attached to another's.
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stop the embedded PostgreSQL on port " + port, e);
        } finally {
            server = null;
        }
    }

    public synchronized boolean running() {
        return server != null;
    }

    public int port() {
        return port;
    }

    /** Where the server keeps its data (its {@code postmaster.pid} among it). */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Points a data source factory at this database. */
    public void configure(DataSourceFactory dataSource) {
        dataSource.setUrl(jdbcUrl());
        dataSource.setUser(SUPERUSER);
        dataSource.setPassword("");
    }

    public String jdbcUrl() {
        return jdbcUrl(databaseName);
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + port + "/" + database;
    }

    /** A connection to {@code database} as the server's superuser. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), SUPERUSER, "");
    }

    /** Runs one statement in the maintenance database, as the superuser ({@code CREATE DATABASE} and the like). */
    public void execute(String sql) throws SQLException {
        try (Connection connection = connect(MAINTENANCE_DATABASE);
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private void createDatabaseIfMissing(String name) throws IOException {
        try (Connection connection = connect(MAINTENANCE_DATABASE);
             Statement statement = connection.createStatement()) {
            var exists = statement.executeQuery(
                    "SELECT 1 FROM pg_database WHERE datname = '" + name.replace("'", "''") + "'");
            if (!exists.next()) {
                statement.execute("CREATE DATABASE \"" + name.replace("\"", "\"\"") + "\"");
            }
        } catch (SQLException e) {
            throw new IOException("cannot prepare the embedded database " + name, e);
        }
    }

    private static boolean answers(int port) {
        try (Connection ignored = DriverManager.getConnection(
                "jdbc:postgresql://localhost:" + port + "/" + MAINTENANCE_DATABASE + "?connectTimeout=2",
                SUPERUSER, "")) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
