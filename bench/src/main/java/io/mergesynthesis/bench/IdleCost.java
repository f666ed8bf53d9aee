package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import io.mergesynthesis.harness.Replica;

/**
 * What an idle replica costs the database: the transactions committed or rolled back on the benchmark database
 * over a quiet window, from {@code pg_stat_database}, read over a connection to the maintenance database so
 * that reading does not count. Nothing else may use the benchmark database meanwhile.
 */
final class IdleCost {

    /**
     * Backends report their statistics up to about ten seconds late when they go idle; waiting that long before
     * the first reading keeps the replica's start-up out of the window.
     */
    static final int SETTLE_SECONDS = 11;

    private final BenchDatabase db;

    IdleCost(BenchDatabase db) {
        this.db = db;
    }

    /** Transactions per second on the benchmark database over {@code windowSeconds}, after settling. */
    double queriesPerSecond(int settleSeconds, int windowSeconds) throws SQLException {
        String name = db.databaseName();
        Replica.sleep(settleSeconds * 1000L);
        try (Connection c = db.connectMaintenance(); PreparedStatement s = c.prepareStatement(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
            long before = read(c, s, name);
            long start = System.nanoTime();
            Replica.sleep(windowSeconds * 1000L);
            // Reports arrive late at both readings alike, so for steady traffic the difference still covers
            // one window's worth.
            long after = read(c, s, name);
            double seconds = (System.nanoTime() - start) / 1e9;
            return (after - before) / seconds;
        }
    }

    /** Transactions committed or rolled back on the benchmark database so far, as the statistics show them now. */
    static long transactions(BenchDatabase db) throws SQLException {
        try (Connection c = db.connectMaintenance(); PreparedStatement s = c.prepareStatement(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
            return read(c, s, db.databaseName());
        }
    }

    private static long read(Connection c, PreparedStatement s, String name) throws SQLException {
        try (var clear = c.createStatement()) {
            clear.execute("SELECT pg_stat_clear_snapshot()");
        }
        s.setString(1, name);
        try (ResultSet rs = s.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no pg_stat_database row for " + name);
            }
            return rs.getLong(1);
        }
    }
}
