package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The start line of every timed drain: every pending row on hold becomes claimable in one commit, and the
 * commit wakes idle workers the way ingest does. A drain's clock starts when this returns.
 */
final class DrainRelease {

    static final String PENDING_CHANNEL = "policy_conflicts_pending";

    private DrainRelease() {
    }

    static void releaseAll(BenchDatabase db) throws SQLException {
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE policy_conflicts SET not_before = now() "
                    + "WHERE synthesis_state = 'pending' AND not_before > now()");
            s.execute("NOTIFY " + PENDING_CHANNEL);
            c.commit();
        }
    }
}
