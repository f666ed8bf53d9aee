package io.mergesynthesis.service.db;

import io.dropwizard.db.DataSourceFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The zero-setup database: a real PostgreSQL run from the jar, keeping its data in a directory so that a
 * restart finds everything where it was. A second process (the token CLI while the server runs) attaches
 * to the running instance instead of starting another on the same directory.
 */
public final class EmbeddedDatabase implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
    private static final String SUPERUSER = "postgres";

    private final EmbeddedPostgres started;
    private final int port;
    private final String databaseName;

    private EmbeddedDatabase(EmbeddedPostgres started, int port, String databaseName) {
        this.started = started;
        this.port = port;
        this.databaseName = databaseName;
    }

    /** Starts the embedded server, or attaches to one already running on the configured port. */
    public static EmbeddedDatabase startOrAttach(EmbeddedDatabaseFactory settings) throws IOException {
        File dataDirectory = new File(settings.getDataDirectory()).getAbsoluteFile();
        EmbeddedPostgres started = null;
        if (answers(settings.getPort())) {
            LOG.info("Embedded PostgreSQL already running on localhost:{}, attaching to it", settings.getPort());
        } else {
            LOG.info("Starting embedded PostgreSQL on localhost:{} with data in {}", settings.getPort(), dataDirectory);
            started = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(settings.getPort())
                    .setServerConfig("listen_addresses", "localhost")
                    .setServerConfig("max_connections", "300")
                    .start();
        }
        EmbeddedDatabase database = new EmbeddedDatabase(started, settings.getPort(), settings.getDatabaseName());
        database.createDatabaseIfMissing();
        return database;
    }

    /** Points a data source factory at this database. */
    public void configure(DataSourceFactory dataSource) {
        dataSource.setUrl(jdbcUrl());
        dataSource.setUser(SUPERUSER);
        dataSource.setPassword("");
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/" + databaseName;
    }

    private void createDatabaseIfMissing() throws IOException {
        try (Connection connection = DriverManager.getConnection(
                "jdbc:postgresql://localhost:" + port + "/postgres", SUPERUSER, "");
             Statement statement = connection.createStatement()) {
            var exists = statement.executeQuery(
                    "SELECT 1 FROM pg_database WHERE datname = '" + databaseName.replace("'", "''") + "'");
            if (!exists.next()) {
                statement.execute("CREATE DATABASE \"" + databaseName.replace("\"", "\"\"") + "\"");
            }
        } catch (SQLException e) {
            throw new IOException("cannot prepare the embedded database " + databaseName, e);
        }
    }

    private static boolean answers(int port) {
        try (Connection ignored = DriverManager.getConnection(
                "jdbc:postgresql://localhost:" + port + "/postgres?connectTimeout=2", SUPERUSER, "")) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        if (started != null) {
            started.close();
        }
    }
}
