package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.core.FleetOverview.OrgRow;
import io.mergesynthesis.service.core.FleetOverview.ReasonCount;
import io.mergesynthesis.service.core.SynthesisState;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** The SQL of the operator's view across orgs; every statement runs on a cross-tenant handle. */
public final class FleetFigures {

    private static final String CONFLICTS_BY_STATE = SqlFiles.of(FleetFigures.class, "conflicts_by_state");
    private static final String MARKED_BY_REASON = SqlFiles.of(FleetFigures.class, "marked_by_reason");
    private static final String RECENT_ENDINGS = SqlFiles.of(FleetFigures.class, "recent_endings");
    private static final String ORGS = SqlFiles.of(FleetFigures.class, "orgs");

    private FleetFigures() {
    }

    /**
     * @param monthStart  where this month's spend begins
     * @param recentSince the oldest attempt ending counted as recent
     */
    public static FleetOverview read(Handle handle, Instant monthStart, Instant recentSince) {
        Map<SynthesisState, Long> byState = new EnumMap<>(SynthesisState.class);
        for (SynthesisState state : SynthesisState.values()) {
            byState.put(state, 0L);
        }
        handle.createQuery(CONFLICTS_BY_STATE)
                .map((rs, ctx) -> byState.put(SynthesisState.ofStored(rs.getString("synthesis_state")),
                        rs.getLong("n")))
                .list();
        List<ReasonCount> marked = handle.createQuery(MARKED_BY_REASON)
                .map((rs, ctx) -> new ReasonCount(AttemptHistory.PERMANENT_FAILURE, rs.getString("reason"),
                        rs.getLong("n")))
                .list();
        List<ReasonCount> recent = handle.createQuery(RECENT_ENDINGS)
                .bind("since", Timestamp.from(recentSince))
                .map((rs, ctx) -> new ReasonCount(rs.getString("outcome"), rs.getString("reason"), rs.getLong("n")))
                .list();
        List<OrgRow> orgs = handle.createQuery(ORGS)
                .bind("month", Timestamp.from(monthStart))
                .map((rs, ctx) -> new OrgRow(rs.getObject("org_id", UUID.class), rs.getLong("conflicts"),
                        rs.getLong("waiting"), rs.getLong("failed"), rs.getLong("calls"), rs.getBigDecimal("cost"),
                        rs.getString("model"), rs.getBigDecimal("monthly_budget_usd")))
                .list();
        return new FleetOverview(byState, marked, recent, orgs);
    }
}
