package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Samples, every 10 ms, how many of some replicas' database connections are doing something (any state but
 * {@code idle}: running a statement or holding a transaction open), from {@code pg_stat_activity} on the
 * maintenance database. A connection checked out of the replica's pool but idle is invisible from here; an
 * open transaction held across a synthesizer call is not.
 */
final class ConnectionSampler implements AutoCloseable {

    private static final long INTERVAL_MILLIS = 10;

    private final Thread thread;
    private volatile boolean stopped;
    private volatile SQLException failure;
    private int peak;
    private long total;
    private long samples;

    /** Counts the connections of every replica named, together, in each sample. */
    ConnectionSampler(BenchDatabase db, String... applicationNames) {
        thread = new Thread(() -> sample(db, applicationNames), "connection-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample(BenchDatabase db, String[] applicationNames) {
        try (Connection c = db.connectMaintenance(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = ANY (?) AND state <> 'idle'")) {
            s.setArray(1, c.createArrayOf("text", applicationNames));
            while (!stopped) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    int inUse = rs.getInt(1);
                    synchronized (this) {
                        peak = Math.max(peak, inUse);
                        total += inUse;
                        samples++;
                    }
                }
                Thread.sleep(INTERVAL_MILLIS);
            }
        } catch (SQLException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the samples showed. */
    record Usage(int peak, double mean, long samples) {
    }

    /** Stops sampling and returns what it saw. */
    Usage stop() throws SQLException {
        stopped = true;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        synchronized (this) {
            return new Usage(peak, samples == 0 ? 0 : (double) total / samples, samples);
        }
    }

    @Override
    public void close() {
        stopped = true;
    }
}
