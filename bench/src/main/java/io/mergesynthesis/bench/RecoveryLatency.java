package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How soon a conflict whose holder died is taken over while a full backlog waits. A backlog of pending
 * conflicts is released to the replica, and in the same commit conflicts are planted as if a replica killed a
 * moment ago held them: leased to an owner that no longer runs, their leases ending one after another while
 * the backlog drains. For each, the time from its lease's expiry to its new attempt is measured on the database
 * clock, up to the merge the new attempt stored: an upper bound on the wait by the few milliseconds the stub
 * synthesizer and the store take. Only conflicts whose lease expired while backlog was still waiting count.
 */
final class RecoveryLatency {

    static final String DEAD_OWNER = "bench-killed-replica";
    private static final String BACKLOG = "recovery-backlog";
    private static final String ORPHANS = "orphan";
    private static final Duration FIRST_EXPIRY = Duration.ofMillis(500);
    private static final Duration EXPIRY_STEP = Duration.ofMillis(20);
    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    private final BenchDatabase db;
    private final Seeder seeder;

    RecoveryLatency(BenchDatabase db, Seeder seeder) {
        this.db = db;
        this.seeder = seeder;
    }

    /** What was measured: the waits, and how many orphans had no backlog left behind them when they expired. */
    record Measured(Percentiles millis, int afterBacklog) {
    }

    /** Milliseconds from lease expiry to the new attempt for {@code orphans} conflicts behind {@code backlog}. */
    Measured measure(int backlog, int orphans) throws SQLException, DrainWatch.Stalled {
        seeder.pendingOnHold(BACKLOG, backlog);
        db.settle();
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE policy_conflicts SET not_before = now() "
                    + "WHERE synthesis_state = 'pending' AND not_before > now()");
            seeder.leasedToDeadHolder(c, ORPHANS, orphans, DEAD_OWNER, FIRST_EXPIRY, EXPIRY_STEP);
            s.execute("NOTIFY " + DrainRelease.PENDING_CHANNEL);
            c.commit();
        }
        DrainWatch.awaitDrained(db, System.nanoTime(), STALL_LIMIT);
        return waits(orphans);
    }

    private Measured waits(int orphans) throws SQLException {
        // The orphan numbered g expired at its received_at (the release) + FIRST_EXPIRY + g * EXPIRY_STEP.
        String expiry = "received_at + interval '%d milliseconds' + substring(dedup_key from '[0-9]+$')::int "
                + "* interval '%d milliseconds'";
        String sql = """
                WITH backlog_end AS (
                    SELECT max(synthesized_at) AS at FROM policy_conflicts WHERE dedup_key LIKE ? || '-%%')
                SELECT synthesis_state, attempts, lease_owner,
                       extract(epoch FROM synthesized_at - (%1$s)) * 1000 AS waited_ms,
                       (%1$s) < backlog_end.at AS behind_backlog
                FROM policy_conflicts, backlog_end
                WHERE dedup_key LIKE ? || '-%%'""".formatted(expiry.formatted(FIRST_EXPIRY.toMillis(),
                EXPIRY_STEP.toMillis()));
        List<Double> waits = new ArrayList<>();
        int afterBacklog = 0;
        int seen = 0;
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, BACKLOG);
            s.setString(2, ORPHANS);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    seen++;
                    if (!"done".equals(rs.getString("synthesis_state")) || rs.getInt("attempts") != 2) {
                        throw new IllegalStateException("an orphaned conflict ended " + rs.getString(1) + " after "
                                + rs.getInt(2) + " attempts, not done on its second");
                    }
                    if (rs.getBoolean("behind_backlog")) {
                        waits.add(rs.getDouble("waited_ms"));
                    } else {
                        afterBacklog++;
                    }
                }
            }
        }
        if (seen != orphans) {
            throw new IllegalStateException("found " + seen + " orphaned conflicts of " + orphans);
        }
        if (waits.size() < orphans / 2) {
            throw new IllegalStateException("the backlog drained before " + afterBacklog + " of " + orphans
                    + " leases expired: give the step a larger backlog");
        }
        return new Measured(new Percentiles(waits.stream().mapToDouble(Double::doubleValue).toArray()),
                afterBacklog);
    }
}
