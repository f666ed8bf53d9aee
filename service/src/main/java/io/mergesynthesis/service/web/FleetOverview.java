package io.mergesynthesis.service.web;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The operator's view across orgs, read from the database (so it is the same whichever replica answers, unlike
 * each replica's own metrics): conflicts by synthesis state, failures by reason, every org's spend and budget.
 * Runs on a cross-tenant handle.
 */
record FleetOverview(Map<String, Long> byState, List<ReasonCount> markedByReason, List<ReasonCount> recentByReason,
                     List<OrgRow> orgs) {

    record ReasonCount(String outcome, String reason, long count) {
    }

    record OrgRow(UUID org, long conflicts, long waitingBudget, long failed, long calls, BigDecimal costUsd,
                  String model, BigDecimal monthlyBudgetUsd) {
    }

    static FleetOverview read(Handle handle, Instant monthStart, Instant recentSince) {
        Map<String, Long> byState = new LinkedHashMap<>();
        InboxCounts.SYNTHESIS_STATES.forEach(s -> byState.put(s, 0L));
        handle.createQuery("SELECT synthesis_state, count(*) AS n FROM policy_conflicts GROUP BY synthesis_state")
                .map((rs, ctx) -> byState.put(rs.getString("synthesis_state"), rs.getLong("n")))
                .list();
        List<ReasonCount> marked = handle.createQuery("""
                        SELECT coalesce(last_failure_reason, 'unknown') AS reason, count(*) AS n
                          FROM policy_conflicts
                         WHERE synthesis_state = 'max_attempts_exceeded'
                         GROUP BY 1 ORDER BY n DESC, reason""")
                .map((rs, ctx) -> new ReasonCount("permanent_failure", rs.getString("reason"), rs.getLong("n")))
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
