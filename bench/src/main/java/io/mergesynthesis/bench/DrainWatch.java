package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import io.mergesynthesis.harness.Replica;

/**
 * Waits for a drain to finish, cheaply: every 50 ms one probe for any row still waiting, which the claim's
 * partial index answers without counting. A full count runs only every few seconds, to notice a drain that
 * has stopped making progress.
 *
 * <p>The probe's connection keeps the planner off sequential scans ({@link #INDEX_ONLY}): going by statistics
 * taken while every row still waited, it would read the table from its first page and, as the drain went on,
 * pass over every finished row and its dead versions before finding one that waits, twenty times a second. That
 * probe grew into a few percent of the database's CPU during a drain, which the benchmark charged to the pool.
 */
final class DrainWatch {

    private static final long PROBE_MILLIS = 50;
    private static final Duration PROGRESS_CHECK = Duration.ofSeconds(5);
    /** For a watcher's own connection: reach the rows through an index, however the statistics read. */
    static final String INDEX_ONLY = "SET enable_seqscan = off";

    private DrainWatch() {
    }

    /** A drain that stopped moving: no row finished for {@code stallLimit}. */
    static final class Stalled extends Exception {
        final long remaining;

        Stalled(long remaining, Duration stallLimit) {
            super(remaining + " conflicts still waiting and none finished in the last " + stallLimit.toSeconds()
                    + " s");
            this.remaining = remaining;
        }
    }

    /**
     * Blocks until no conflict is pending or in progress and returns the seconds since {@code startNanos}.
     *
     * @throws Stalled when the number waiting has not dropped for {@code stallLimit}
     */
    static double awaitDrained(BenchDatabase db, long startNanos, Duration stallLimit)
            throws SQLException, Stalled {
        try (Connection c = db.connectAsSweep();
             Statement setUp = c.createStatement();
             // One test per partial index: the pending rows by org, those under a lease by expiry.
             PreparedStatement any = c.prepareStatement(
                     "SELECT EXISTS (SELECT 1 FROM policy_conflicts WHERE synthesis_state = 'pending') "
                     + "OR EXISTS (SELECT 1 FROM policy_conflicts WHERE synthesis_state = 'in_progress')");
             PreparedStatement count = c.prepareStatement(
                     "SELECT (SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'pending') "
                     + "+ (SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'in_progress')")) {
            setUp.execute(INDEX_ONLY);
            long lastCheck = System.nanoTime();
            long lastProgress = lastCheck;
            long lastRemaining = Long.MAX_VALUE;
            while (true) {
                try (ResultSet rs = any.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        return (System.nanoTime() - startNanos) / 1e9;
                    }
                }
                long now = System.nanoTime();
                if (now - lastCheck >= PROGRESS_CHECK.toNanos()) {
                    lastCheck = now;
                    long remaining;
                    try (ResultSet rs = count.executeQuery()) {
                        rs.next();
                        remaining = rs.getLong(1);
                    }
                    if (remaining < lastRemaining) {
                        lastRemaining = remaining;
                        lastProgress = now;
                    } else if (now - lastProgress >= stallLimit.toNanos()) {
                        throw new Stalled(remaining, stallLimit);
                    }
                }
                Replica.sleep(PROBE_MILLIS);
            }
        }
    }
}
