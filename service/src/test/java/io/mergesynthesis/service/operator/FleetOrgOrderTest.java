package io.mergesynthesis.service.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.core.FleetOverview.OrgOrder;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.testing.TestDatabase;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's org list, read from the kept counts and month totals: each order lists the orgs as its name says,
 * pages follow on, and a search keeps its order.
 */
class FleetOrgOrderTest {

    static final UUID BIG = UUID.fromString("00000000-0000-4000-8000-00000000000b");
    static final UUID COSTLY = UUID.fromString("00000000-0000-4000-8000-00000000000c");
    static final UUID NAMED_A = UUID.fromString("00000000-0000-4000-8000-00000000000a");
    static final UUID UNNAMED = UUID.fromString("00000000-0000-4000-8000-00000000000d");

    static Fleet fleet;

    @BeforeAll
    static void orgs() {
        TestDatabase database = TestDatabase.fresh();
        Jdbi jdbi = database.jdbi();
        conflicts(jdbi, BIG, 30, "done");
        conflicts(jdbi, BIG, 4, "max_attempts_exceeded");
        conflicts(jdbi, COSTLY, 5, "done");
        conflicts(jdbi, COSTLY, 2, "waiting_budget");
        conflicts(jdbi, NAMED_A, 10, "pending");
        conflicts(jdbi, UNNAMED, 1, "done");
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO org_names (org_id, name) VALUES
                  ('00000000-0000-4000-8000-00000000000b', 'Zeta Big'),
                  ('00000000-0000-4000-8000-00000000000c', 'Mu Costly'),
                  ('00000000-0000-4000-8000-00000000000a', 'alpha')"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                                              output_tokens, cost_usd, latency_ms, outcome)
                SELECT gen_random_uuid(), org_id, id, 1, 'primary', 'anthropic', 'small', 1, 1,
                       CASE WHEN org_id = '00000000-0000-4000-8000-00000000000c' THEN 1.5 ELSE 0.001 END, 1, 'stored'
                  FROM policy_conflicts WHERE synthesis_state = 'done'"""));
        // Last month's spend counts for nothing this month.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                                              output_tokens, cost_usd, latency_ms, outcome, created_at)
                SELECT gen_random_uuid(), org_id, id, 1, 'primary', 'anthropic', 'small', 1, 1, 100, 1, 'stored',
                       date_trunc('month', now()) - interval '2 days'
                  FROM policy_conflicts WHERE org_id = '00000000-0000-4000-8000-00000000000a'"""));
        fleet = new Fleet(database.transactions());
    }

    private static void conflicts(Jdbi jdbi, UUID org, int n, String state) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, synthesis_state, suggested_merge, failure_marker,
                                                      last_failure_reason)
                        SELECT gen_random_uuid(), :org, :state || '-' || i, 'tool_call', 'jira.a', '[]', 'p1', now(),
                               :state, CASE WHEN :state = 'done' THEN '{}'::jsonb END,
                               CASE WHEN :state = 'max_attempts_exceeded' THEN 'synthesis_max_attempts_exceeded' END,
                               CASE WHEN :state = 'max_attempts_exceeded' THEN 'synthesizer' END
                          FROM generate_series(1, :n) AS i""")
                .bind("org", org).bind("state", state).bind("n", n).execute());
    }

    private static List<UUID> listed(String search, int offset, int size, OrgOrder order) {
        return fleet.overview(Instant.now(), new FleetOverview.OrgPage(search, offset, size, order)).orgs().stream()
                .map(FleetOverview.OrgRow::org).toList();
    }

    @Test
    void eachOrderListsTheOrgsAsItsNameSays() {
        assertThat(listed("", 0, 10, OrgOrder.SPEND)).containsExactly(COSTLY, BIG, UNNAMED, NAMED_A);
        assertThat(listed("", 0, 10, OrgOrder.CONFLICTS)).containsExactly(BIG, NAMED_A, COSTLY, UNNAMED);
        assertThat(listed("", 0, 10, OrgOrder.NAME)).containsExactly(NAMED_A, COSTLY, BIG, UNNAMED);
    }

    @Test
    void pagesFollowOnInTheirOrderAndASearchKeepsIt() {
        assertThat(listed("", 0, 2, OrgOrder.CONFLICTS)).containsExactly(BIG, NAMED_A);
        assertThat(listed("", 2, 2, OrgOrder.CONFLICTS)).containsExactly(COSTLY, UNNAMED);
        assertThat(listed("m", 0, 10, OrgOrder.NAME)).containsExactly(COSTLY);
        assertThat(listed("00000000", 0, 10, OrgOrder.NAME)).containsExactly(NAMED_A, COSTLY, BIG, UNNAMED);
    }

    @Test
    void theFiguresComeFromTheKeptCountsAndThisMonthsTotal() {
        FleetOverview overview = fleet.overview(Instant.now(), new FleetOverview.OrgPage("", 0, 10, OrgOrder.SPEND));
        FleetOverview.OrgRow big = overview.orgs().stream().filter(o -> o.org().equals(BIG)).findFirst().orElseThrow();
        assertThat(big.conflicts()).isEqualTo(34);
        assertThat(big.failed()).isEqualTo(4);
        assertThat(big.calls()).isEqualTo(30);
        assertThat(big.costUsd()).isEqualByComparingTo("0.030");
        FleetOverview.OrgRow costly = overview.orgs().get(0);
        assertThat(costly.waitingBudget()).isEqualTo(2);
        assertThat(costly.costUsd()).isEqualByComparingTo(new BigDecimal("7.5"));
        FleetOverview.OrgRow alpha = overview.orgs().stream().filter(o -> o.org().equals(NAMED_A)).findFirst()
                .orElseThrow();
        assertThat(alpha.calls()).isZero();
        assertThat(overview.byState().get(SynthesisState.DONE)).isEqualTo(36);
        assertThat(overview.byState().get(SynthesisState.PENDING)).isEqualTo(10);
    }
}
