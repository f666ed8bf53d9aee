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
        handle.createQuery("SELECT synthesis_state, count(*) AS n FROM policy_conflicts GROUP BY synthesis_state")
                .map((rs, ctx) -> byState.put(SynthesisState.ofStored(rs.getString("synthesis_state")),
                        rs.getLong("n")))
                .list();
        List<ReasonCount> marked = handle.createQuery("""
                        SELECT coalesce(last_failure_reason, 'unknown') AS reason, count(*) AS n
                          FROM policy_conflicts
                         WHERE synthesis_state = 'max_attempts_exceeded'
                         GROUP BY 1 ORDER BY n DESC, reason""")
                .map((rs, ctx) -> new ReasonCount(AttemptHistory.PERMANENT_FAILURE, rs.getString("reason"),
                        rs.getLong("n")))
                .list();
        List<ReasonCount> recent = handle.createQuery("""
                        SELECT outcome, reason, count(*) AS n
                          FROM synthesis_attempt_history
                         WHERE finished_at >= :since AND outcome <> 'requeued'
                         GROUP BY outcome, reason ORDER BY n DESC, outcome, reason""")
                .bind("since", Timestamp.from(recentSince))
                .map((rs, ctx) -> new ReasonCount(rs.getString("outcome"), rs.getString("reason"), rs.getLong("n")))
                .list();
        List<OrgRow> orgs = handle.createQuery("""
                        WITH conflicts AS (
                            SELECT org_id, count(*) AS conflicts,
                                   count(*) FILTER (WHERE synthesis_state = 'waiting_budget') AS waiting,
                                   count(*) FILTER (WHERE synthesis_state = 'max_attempts_exceeded') AS failed
                              FROM policy_conflicts GROUP BY org_id),
                        spend AS (
                            SELECT org_id, count(*) AS calls, sum(cost_usd) AS cost
                              FROM llm_usage_events WHERE created_at >= :month GROUP BY org_id)
                        SELECT org_id, coalesce(c.conflicts, 0) AS conflicts, coalesce(c.waiting, 0) AS waiting,
                               coalesce(c.failed, 0) AS failed, coalesce(p.calls, 0) AS calls,
                               coalesce(p.cost, 0) AS cost, s.model, s.monthly_budget_usd
                          FROM conflicts c
                          FULL JOIN spend p USING (org_id)
                          FULL JOIN org_synthesis_settings s USING (org_id)
                         ORDER BY coalesce(p.cost, 0) DESC, coalesce(c.conflicts, 0) DESC, org_id""")
                .bind("month", Timestamp.from(monthStart))
                .map((rs, ctx) -> new OrgRow(rs.getObject("org_id", UUID.class), rs.getLong("conflicts"),
                        rs.getLong("waiting"), rs.getLong("failed"), rs.getLong("calls"), rs.getBigDecimal("cost"),
                        rs.getString("model"), rs.getBigDecimal("monthly_budget_usd")))
                .list();
        return new FleetOverview(byState, marked, recent, orgs);
    }
}
