package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.CommandRun;
import io.mergesynthesis.service.testing.TestDatabase;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schemas 14 and 17 on a database that already holds conflicts and paid calls: {@code db migrate} counts what is
 * there and totals each org's months, by model as well, and {@code db recount} then finds the counts exact, or repairs and names a count
 * changed by hand.
 */
class CountsMigrationTest {

    @TempDir
    Path dir;

    @Test
    void theMigrationCountsAPopulatedDatabaseAndTheRecountAgrees() throws Exception {
        TestDatabase database = TestDatabase.migratedTo("13");
        Jdbi jdbi = database.jdbi();
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                              detected_at, synthesis_state, suggested_merge, inbox_status,
                                              resolution, resolved_at, failure_marker, last_failure_reason)
                SELECT gen_random_uuid(), md5('org-' || (i % 2))::uuid, 'k-' || i, 'tool_call', 'jira.a', '[]', 'p1',
                       now(), s.state, CASE WHEN s.state = 'done' THEN '{}'::jsonb END,
                       CASE WHEN i % 5 = 0 THEN 'resolved' ELSE 'open' END,
                       CASE WHEN i % 5 = 0 THEN 'manual' END, CASE WHEN i % 5 = 0 THEN now() END,
                       CASE WHEN s.state = 'max_attempts_exceeded' THEN 'synthesis_max_attempts_exceeded' END,
                       CASE WHEN s.state = 'max_attempts_exceeded' THEN 'synthesizer' END
                  FROM generate_series(1, 700) AS i,
                       LATERAL (SELECT (ARRAY['pending', 'done', 'done', 'max_attempts_exceeded',
                                              'waiting_budget', 'not_needed', 'done'])[1 + i % 7] AS state) s"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                                              output_tokens, cost_usd, latency_ms, outcome, created_at)
                SELECT gen_random_uuid(), c.org_id, c.id, 1, 'primary', 'anthropic', 'small', 10, 10,
                       0.000001 * (1 + row_number() OVER ()), 5, 'stored',
                       CASE WHEN row_number() OVER () % 3 = 0 THEN now() - interval '40 days' ELSE now() END
                  FROM policy_conflicts c WHERE c.synthesis_state = 'done'"""));

        Path config = CommandRun.config(dir, database.url());
        CommandRun migrate = CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "migrate", config.toString());
        assertThat(migrate.failure()).isEmpty();

        List<Map<String, Object>> kept = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, synthesis_state, inbox_status, n FROM org_conflict_totals ORDER BY 1, 2, 3""")
                .mapToMap().list());
        List<Map<String, Object>> counted = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, synthesis_state, inbox_status, count(*) AS n FROM policy_conflicts
                 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3""").mapToMap().list());
        assertThat(kept).hasSizeGreaterThan(10).isEqualTo(counted);
        List<Map<String, Object>> totals = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, month, cost_usd, calls FROM org_spend_by_month ORDER BY 1, 2""").mapToMap().list());
        List<Map<String, Object>> summed = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, ledger_month(created_at) AS month, sum(cost_usd) AS cost_usd, count(*) AS calls
                  FROM llm_usage_events GROUP BY 1, 2 ORDER BY 1, 2""").mapToMap().list());
        assertThat(totals).hasSize(4).isEqualTo(summed);
        BigDecimal thisMonth = jdbi.withHandle(h -> h.createQuery("""
                SELECT sum(cost_usd) FROM llm_usage_events
                 WHERE org_id = md5('org-0')::uuid AND ledger_month(created_at) = ledger_month(now())""")
                .mapTo(BigDecimal.class).one());
        BigDecimal budgetReads = jdbi.withHandle(h -> h.createQuery("SELECT org_month_spend(md5('org-0')::uuid)")
                .mapTo(BigDecimal.class).one());
        assertThat(budgetReads).isEqualByComparingTo(thisMonth);

        List<Map<String, Object>> usage = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, month, provider, model, calls, input_tokens, output_tokens, cost_usd
                  FROM org_usage_by_month ORDER BY 1, 2, 3, 4""").mapToMap().list());
        List<Map<String, Object>> usageSummed = jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, ledger_month(created_at) AS month, provider, model, count(*) AS calls,
                       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens, sum(cost_usd) AS cost_usd
                  FROM llm_usage_events GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4""").mapToMap().list());
        assertThat(usage).hasSize(4).isEqualTo(usageSummed);

        // Schema 18's search keys for the conflicts already stored: the target and the engine key of each.
        long keys = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM conflict_search_keys k JOIN policy_conflicts c ON c.id = k.conflict_id
                 WHERE k.org_id = c.org_id AND k.search_key IN (c.target, c.dedup_key)""").mapTo(Long.class).one());
        assertThat(keys).isEqualTo(1400);

        // Schema 20's index of conflicts by action: each conflict once, with its org, action and time of receipt.
        long byAction = jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM conflicts_by_action a JOIN policy_conflicts c ON c.id = a.conflict_id
                 WHERE a.org_id = c.org_id AND a.action = c.action AND a.received_at = c.received_at""")
                .mapTo(Long.class).one());
        long rowsByAction = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM conflicts_by_action")
                .mapTo(Long.class).one());
        assertThat(byAction).isEqualTo(700);
        assertThat(rowsByAction).isEqualTo(700);

        CommandRun exact = CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "recount", config.toString());
        assertThat(exact.failure()).isEmpty();
        assertThat(exact.err()).contains("The counts were exact.");

        jdbi.useHandle(h -> h.execute("""
                INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
                VALUES (md5('org-1')::uuid, 'done', 'open', 2)"""));
        CommandRun repaired = CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "recount", config.toString());
        assertThat(repaired.failure()).isEmpty();
        String org = jdbi.withHandle(h -> h.createQuery("SELECT md5('org-1')::uuid::text").mapTo(String.class).one());
        assertThat(repaired.err()).contains("org " + org + ", done and open: kept", "1 count(s) had drifted.");
        assertThat(CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "recount", config.toString()).err())
                .contains("The counts were exact.");
    }
}
