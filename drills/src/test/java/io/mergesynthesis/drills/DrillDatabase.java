package io.mergesynthesis.drills;

import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.ServiceProcess;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real PostgreSQL server of the drill's own, which the drill can stop and start again on the same port and data
 * directory (a database restart as replicas see it: every connection dropped, then refused, then accepted again).
 * Replicas reach it as the superuser, as with the product's embedded default; the schema's roles and row-level
 * security still apply, since the product switches role in every transaction.
 */
final class DrillDatabase implements AutoCloseable {

    private final EmbeddedDatabase server;

    private DrillDatabase(EmbeddedDatabase server) {
        this.server = server;
    }

    /** Starts a fresh server with default settings. */
    static DrillDatabase start(String drill) {
        return start(drill, Map.of());
    }

    /** Starts a fresh server; {@code settings} are extra server settings ({@code max_connections} and the like). */
    static DrillDatabase start(String drill, Map<String, String> settings) {
        try {
            Path dir = Files.createDirectories(Product.workDirectory("drills").resolve(drill));
            return startOn(Files.createTempDirectory(dir, "pgdata"), settings);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the drill's PostgreSQL", e);
        }
    }

    /**
     * Starts a server on the data in {@code dataDirectory} (made by {@code initdb} when it holds none), on a new
     * port.
     */
    static DrillDatabase startOn(Path dataDirectory, Map<String, String> settings) {
        try {
            // A port handed out by the harness, so that no replica is given it while the server is down.
            return new DrillDatabase(EmbeddedDatabase.builder()
                    .dataDirectory(dataDirectory)
                    .port(ServiceProcess.freePort())
                    .startupWait(Duration.ofSeconds(60))
                    .setting("listen_addresses", "localhost")
                    .setting("max_connections", "200")
                    .setting("synchronous_commit", "off")
                    .settings(settings)
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the drill's PostgreSQL", e);
        }
    }

    /** Starts the server again on the same port and data after {@link #stop()}. */
    void startServer() {
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the drill's PostgreSQL on port " + server.port(), e);
        }
    }

    /** Stops the server (fast shutdown: open connections are cut); the data stays for {@link #startServer()}. */
    void stop() {
        server.stop();
    }

    String url() {
        return server.jdbcUrl();
    }

    int port() {
        return server.port();
    }

    /** Where the server keeps its data. */
    Path dataDirectory() {
        return server.dataDirectory();
    }

    String user() {
        return EmbeddedDatabase.SUPERUSER;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), "");
    }

    /** The first column of the first row of {@code sql}, as a long (counts, mostly). */
    long count(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    /** Like {@link #count(String)}, with {@code ?} parameters bound in order. */
    long count(String sql, Object... parameters) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    /** The first column of every row of {@code sql}, as {@code type}, with {@code ?} parameters bound in order. */
    <T> List<T> list(String sql, Class<T> type, Object... parameters) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            List<T> values = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    values.add(r.getObject(1, type));
                }
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    /**
     * {@link #count(String)} on a connection the caller holds: for a drill that starves the server of
     * connections and must keep one of its own to watch it.
     */
    static long count(Connection connection, String sql) {
        try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    /** The first column of the first row of {@code sql}, as text (null for SQL NULL). */
    String text(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    /** Every row of {@code sql}, each column as text (null for SQL NULL). */
    List<String[]> rows(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            int columns = r.getMetaData().getColumnCount();
            List<String[]> rows = new ArrayList<>();
            while (r.next()) {
                String[] row = new String[columns];
                for (int i = 0; i < columns; i++) {
                    row[i] = r.getString(i + 1);
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("drill query failed: " + sql, e);
        }
    }

    void execute(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("drill statement failed: " + sql, e);
        }
    }

    @Override
    public void close() {
        stop();
    }
}
