package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

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

    /**
     * Makes the backlogs on hold of {@code orgs} claimable in one commit, as if reported one org after another:
     * the first org's conflicts the oldest, a second apart from the next org's, so that a claim by age alone
     * would give the first org every call.
     */
    static void releaseOldestFirst(BenchDatabase db, List<UUID> orgs) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement release = c.prepareStatement(
                "UPDATE policy_conflicts SET not_before = now() - ? * interval '1 second' "
                        + "WHERE org_id = ? AND synthesis_state = 'pending' AND not_before > now()");
             Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (int i = 0; i < orgs.size(); i++) {
                release.setInt(1, orgs.size() - i);
                release.setObject(2, orgs.get(i));
                release.executeUpdate();
            }
            s.execute("NOTIFY " + PENDING_CHANNEL);
            c.commit();
        }
    }
}
