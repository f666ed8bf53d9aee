package io.mergesynthesis.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What each statement cost the database over a profiled drain, from {@code pg_stat_statements}: how often it ran
 * and how long it executed, per conflict drained. CPU figures say how much the database spent; this says on
 * what, so that a change to the pool's SQL can be weighed statement by statement. The server must have the
 * module loaded ({@code --statements} starts the embedded one so); execution time is the executor's, and does
 * not count parsing, commits or sending rows.
 */
final class StatementCosts {

    private static final int TOP = 15;
    private static final int QUERY_CHARS = 150;

    private final BenchDatabase db;

    private StatementCosts(BenchDatabase db) {
        this.db = db;
    }

    /** The module on {@code db}, its extension created; fails when the server did not load it. */
    static StatementCosts on(BenchDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
        StatementCosts costs = new StatementCosts(db);
        try {
            costs.reset();
        } catch (SQLException e) {
            throw new SQLException("--statements needs pg_stat_statements in the server's "
                    + "shared_preload_libraries (the embedded server gets it; a DATABASE_URL server must have it): "
                    + e.getMessage(), e.getSQLState(), e);
        }
        return costs;
    }

    /** Forgets everything counted so far: called right before the profiled drain is released. */
    void reset() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /** One statement's cost since the reset. */
    record Line(long calls, long rows, double totalMillis, String query) {
    }

    /** The statements that executed longest on this database since the reset, longest first. */
    List<Line> top() throws SQLException {
        List<Line> lines = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT calls, rows, total_exec_time, regexp_replace(query, '\\s+', ' ', 'g')
                     FROM pg_stat_statements
                     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                     ORDER BY total_exec_time DESC
                     LIMIT %d""".formatted(TOP))) {
            while (rs.next()) {
                lines.add(new Line(rs.getLong(1), rs.getLong(2), rs.getDouble(3), rs.getString(4)));
            }
        }
        return lines;
    }

    /** {@code lines} as a table per unit of work ({@code units} conflicts), for a person to read. */
    static String table(List<Line> lines, long units) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "pg_stat_statements over a profiled drain of %d conflicts, per conflict; execution time only%n",
                units));
        out.append(String.format(Locale.ROOT, "%10s %10s %12s %12s  %s%n", "calls", "rows", "exec ms",
                "ms per call", "statement"));
        for (Line line : lines) {
            String query = line.query().length() > QUERY_CHARS
                    ? line.query().substring(0, QUERY_CHARS) + "..." : line.query();
            out.append(String.format(Locale.ROOT, "%10.3f %10.3f %12.4f %12.4f  %s%n",
                    (double) line.calls() / units, (double) line.rows() / units, line.totalMillis() / units,
                    line.calls() == 0 ? 0.0 : line.totalMillis() / line.calls(), query));
        }
        return out.toString();
    }

    /** Writes {@link #table} of what ran since the reset to {@code file}. */
    void write(Path file, long units) throws SQLException, IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, table(top(), units));
    }
}
