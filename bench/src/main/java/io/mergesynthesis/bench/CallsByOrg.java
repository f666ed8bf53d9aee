package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The provider's calls for each org over a window, as the replicas' operator page counts them: the rows of the
 * usage ledger ({@code llm_usage_events}, one per call) whose provider answered in the window. The window's ends
 * are read on the database's clock; the ledger is stamped by the replicas on the same machine.
 */
final class CallsByOrg {

    private final BenchDatabase db;

    CallsByOrg(BenchDatabase db) {
        this.db = db;
    }

    /** The database's clock now: a window's start or end. */
    OffsetDateTime now() throws SQLException {
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    /** The calls of each org answered after {@code from} and up to {@code to}; an org with none is absent. */
    Map<UUID, Long> between(OffsetDateTime from, OffsetDateTime to) throws SQLException {
        Map<UUID, Long> calls = new HashMap<>();
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT org_id, count(*) FROM llm_usage_events WHERE created_at > ? AND created_at <= ? "
                        + "GROUP BY org_id")) {
            s.setObject(1, from);
            s.setObject(2, to);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    calls.put(rs.getObject(1, UUID.class), rs.getLong(2));
                }
            }
        }
        return calls;
    }
}
