package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.core.FleetOverview.OrgPage;
import io.mergesynthesis.service.core.FleetOverview.OrgRow;
import io.mergesynthesis.service.core.FleetOverview.ReasonCount;
import io.mergesynthesis.service.core.SynthesisState;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
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
     * @param orgPage     which orgs to list
     */
    public static FleetOverview read(Handle handle, Instant monthStart, Instant recentSince, OrgPage orgPage) {
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
                .bind("prefix", likePrefix(orgPage.search()))
                .bind("sort", orgPage.order().wireName())
                .bind("offset", orgPage.offset())
                .bind("limit", orgPage.size() + 1)
                .map((rs, ctx) -> new OrgRow(rs.getObject("org_id", UUID.class), rs.getString("name"),
                        rs.getLong("conflicts"),
                        rs.getLong("waiting"), rs.getLong("failed"), rs.getLong("calls"), rs.getBigDecimal("cost"),
                        rs.getString("model"), rs.getBigDecimal("monthly_budget_usd")))
                .list();
        boolean more = orgs.size() > orgPage.size();
        return new FleetOverview(byState, marked, recent, more ? orgs.subList(0, orgPage.size()) : orgs, more);
    }

    /** The search as a LIKE prefix of lower-case text, its own wildcards taken literally. */
    static String likePrefix(String search) {
        return search == null ? "" : search.strip().toLowerCase(Locale.ROOT)
                .replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
