package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Schema 19 keeps the counts, the search keys and the month totals per statement (and schema 20 the index by
 * action): a statement of many rows, of several orgs, pairs and months, of rows already stored (skipped or written
 * again), or of none, leaves them equal to the rows themselves, and writes one count row per org and pair it
 * touched rather than one per conflict.
 * Random statements, each round checked; the seed is in the failure message.
 */
class KeptFiguresPerStatementTest {

    private static final String[] STATES = {"pending", "done", "max_attempts_exceeded", "waiting_budget",
            "not_needed", "in_progress"};
    private static final String[] STATUSES = {"open", "acknowledged", "resolved"};
    private static final int ORGS = 3;
    /** What a conflict holds in its state and status (merge, marker, resolution), from p.state and p.status. */
    private static final String STATE_COLUMNS = "suggested_merge, failure_marker, last_failure_reason, resolution, "
            + "resolved_at";
    private static final String STATE_VALUES = """
            CASE WHEN p.state = 'done' THEN '{}'::jsonb END,
            CASE WHEN p.state = 'max_attempts_exceeded' THEN 'synthesis_max_attempts_exceeded'::failure_marker END,
            CASE WHEN p.state = 'max_attempts_exceeded' THEN 'synthesizer'::failure_reason END,
            CASE WHEN p.status = 'resolved' THEN 'manual'::resolution END,
            CASE WHEN p.status = 'resolved' THEN now() END""";
    private static final int ROUNDS = 40;

    @Test
    void countsAndSearchKeysEqualTheConflictsAfterEveryStatement() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Jdbi jdbi = TestDatabase.fresh().jdbi();
        jdbi.useHandle(h -> {
            for (int round = 0; round < ROUNDS; round++) {
                String what = switch (random.nextInt(4)) {
                    case 0, 1 -> insert(h, random, round, 0);
                    case 2 -> delete(h, random);
                    default -> update(h, random);
                };
                assertThat(kept(h)).as("seed %d, round %d after %s", seed, round, what).isEqualTo(counted(h));
                assertThat(keys(h)).as("seed %d, round %d after %s", seed, round, what).isEqualTo(expectedKeys(h));
                assertThat(byAction(h)).as("seed %d, round %d after %s", seed, round, what)
                        .isEqualTo(expectedByAction(h));
            }
            assertThat(h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one())
                    .as("seed %d: the rounds stored conflicts", seed).isPositive();
        });
    }

    @Test
    void aStatementOfManyConflictsWritesOneCountRowPerOrgAndPair() {
        Jdbi jdbi = TestDatabase.fresh().jdbi();
        jdbi.useHandle(h -> {
            h.execute("""
                    INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                  detected_at, synthesis_state, inbox_status)
                    SELECT gen_random_uuid(), md5('org-' || (i % 2))::uuid, 'bulk-' || i, 'tool_call', 'jira.' || i,
                           '[{"policy_id": "p-a"}, {"policy_id": "p-b"}]', 'p-a', now(),
                           CASE WHEN i % 3 = 0 THEN 'waiting_budget' ELSE 'pending' END, 'open'
                      FROM generate_series(1, 600) AS i""");
            assertThat(h.createQuery("SELECT count(*) FROM org_conflict_counts").mapTo(Long.class).one())
                    .isEqualTo(4);
            assertThat(kept(h)).isEqualTo(counted(h));
            assertThat(h.createQuery("SELECT count(*) FROM conflict_search_keys").mapTo(Long.class).one())
                    .isEqualTo(600L * 4);
            h.execute("DELETE FROM policy_conflicts WHERE dedup_key LIKE 'bulk-1%'");
            assertThat(h.createQuery("SELECT count(*) FROM org_conflict_counts").mapTo(Long.class).one())
                    .isLessThanOrEqualTo(8);
            assertThat(kept(h)).isEqualTo(counted(h));
            assertThat(keys(h)).isEqualTo(expectedKeys(h));
        });
    }

    @Test
    void monthTotalsEqualTheLedgerAfterEveryStatement() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Jdbi jdbi = TestDatabase.fresh().jdbi();
        jdbi.useHandle(h -> {
            // At least one conflict, for the calls to be recorded against.
            insert(h, new Random(seed + 1), 0, 1);
            for (int round = 0; round < ROUNDS; round++) {
                int calls = random.nextInt(30);
                boolean again = random.nextBoolean();
                // Some rows already on record are written again (as an attempt settles its calls' outcome), with
                // another cost that must not count: those add nothing; the new rows beside them add once.
                h.createUpdate("""
                        INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                      input_tokens, output_tokens, cost_usd, latency_ms, outcome,
                                                      created_at)
                        SELECT e.id, e.org_id, e.conflict_id, 1, 'primary', e.provider, e.model, e.input_tokens,
                               e.output_tokens, e.cost_usd + 1, 5, 'discarded', e.created_at
                          FROM (SELECT * FROM llm_usage_events WHERE :again ORDER BY id LIMIT 5) AS e
                        UNION ALL
                        SELECT gen_random_uuid(), c.org_id, c.id, 1, 'primary', 'anthropic',
                               (ARRAY['small', 'large'])[1 + (i % 2)], 10 + i, 20 + i, 0.000001 * (7 * i + :round),
                               5, 'discarded', now() - (i % 3) * interval '35 days'
                          FROM generate_series(1, :calls) AS i
                          JOIN LATERAL (SELECT id, org_id FROM policy_conflicts ORDER BY id
                                         OFFSET i % greatest(1, (SELECT count(*) FROM policy_conflicts)) LIMIT 1)
                               AS c ON true
                        ON CONFLICT (id, created_at) DO UPDATE SET outcome = 'stored'""")
                        .bind("calls", calls).bind("round", round).bind("again", again).execute();
                assertThat(spend(h)).as("seed %d, round %d", seed, round).isEqualTo(spendSummed(h));
                assertThat(usage(h)).as("seed %d, round %d", seed, round).isEqualTo(usageSummed(h));
            }
            assertThat(h.createQuery("SELECT count(*) FROM llm_usage_events").mapTo(Long.class).one())
                    .as("seed %d: calls were recorded", seed).isPositive();
        });
    }

    /**
     * Inserts {@code atLeast} to 60 conflicts of random orgs, pairs and words in one statement, some of them already
     * stored.
     */
    private static String insert(Handle h, Random random, int round, int atLeast) {
        int rows = atLeast + random.nextInt(61 - atLeast);
        int repeats = random.nextInt(5);
        h.createUpdate("""
                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                              detected_at, synthesis_state, inbox_status, {state_columns})
                SELECT gen_random_uuid(), md5('org-' || ((i * 7 + :seed) % :orgs))::uuid,
                       CASE WHEN i <= :repeats THEN 'same-' || i ELSE 'k-' || :round || '-' || i END,
                       'tool_call', (ARRAY['jira.', 'github.', 'slack.'])[1 + i % 3] || (i % 4),
                       jsonb_build_array(jsonb_build_object('policy_id', 'pol-' || (i % 5)),
                                         jsonb_build_object('policy_id', 'pol-' || (i % 5)),
                                         jsonb_build_object('layer', 'org')),
                       'pol-' || (i % 5), now(), p.state::synthesis_state, p.status::inbox_status,
                       {state_values}
                  FROM generate_series(1, :rows) AS i,
                       LATERAL (SELECT (CAST(:states AS text[]))[1 + (i * 13 + :seed) % 6] AS state,
                                       (CAST(:statuses AS text[]))[1 + (i * 5 + :seed) % 3] AS status) AS p
                ON CONFLICT (org_id, dedup_key) DO NOTHING""".replace("{state_columns}", STATE_COLUMNS)
                .replace("{state_values}", STATE_VALUES))
                .bind("seed", random.nextInt(1000)).bind("orgs", ORGS).bind("repeats", repeats)
                .bind("round", round).bind("rows", rows)
                .bind("states", "{" + String.join(",", STATES) + "}")
                .bind("statuses", "{" + String.join(",", STATUSES) + "}")
                .execute();
        return "an insert of " + rows;
    }

    /** Deletes a random share of the conflicts in one statement. */
    private static String delete(Handle h, Random random) {
        int modulus = 2 + random.nextInt(4);
        h.createUpdate("DELETE FROM policy_conflicts WHERE get_byte(uuid_send(id), 0) % :m = 0")
                .bind("m", modulus).execute();
        return "a delete of one in " + modulus;
    }

    /**
     * Moves a random share of the conflicts to another pair in one statement (the row trigger's part), all but the
     * move from in progress to done, which only the store statements make and count themselves.
     */
    private static String update(Handle h, Random random) {
        h.createUpdate("""
                UPDATE policy_conflicts
                   SET (synthesis_state, inbox_status, {state_columns}) =
                       (SELECT p.state::synthesis_state, p.status::inbox_status, {state_values}
                          FROM (SELECT (CAST(:states AS text[]))[1 + :s] AS state,
                                       (CAST(:statuses AS text[]))[1 + :t] AS status) AS p)
                 WHERE get_byte(uuid_send(id), 1) % 3 = :pick
                   -- In progress to done in the same status is the store statements' move, which they count.
                   AND NOT (synthesis_state = 'in_progress' AND (CAST(:states AS text[]))[1 + :s] = 'done')""".replace("{state_columns}", STATE_COLUMNS)
                .replace("{state_values}", STATE_VALUES))
                .bind("states", "{" + String.join(",", STATES) + "}")
                .bind("statuses", "{" + String.join(",", STATUSES) + "}")
                .bind("s", random.nextInt(STATES.length)).bind("t", random.nextInt(STATUSES.length))
                .bind("pick", random.nextInt(3)).execute();
        if (random.nextInt(4) == 0) {
            // No statement of the service does this; an update by hand still keeps the index by action true.
            h.createUpdate("""
                    UPDATE policy_conflicts SET received_at = received_at - interval '1 minute'
                     WHERE get_byte(uuid_send(id), 2) % 3 = :pick""").bind("pick", random.nextInt(3)).execute();
            return "an update, and a move of some conflicts' time of receipt";
        }
        return "an update";
    }

    private static List<Map<String, Object>> kept(Handle h) {
        return h.createQuery(
                "SELECT org_id, synthesis_state, inbox_status, n FROM org_conflict_totals ORDER BY 1, 2, 3")
                .mapToMap().list();
    }

    private static List<Map<String, Object>> counted(Handle h) {
        return h.createQuery("""
                SELECT org_id, counted_state(synthesis_state) AS synthesis_state, inbox_status, count(*) AS n
                  FROM policy_conflicts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3""").mapToMap().list();
    }

    private static List<Map<String, Object>> keys(Handle h) {
        return h.createQuery("SELECT org_id, search_key, conflict_id FROM conflict_search_keys ORDER BY 1, 2, 3")
                .mapToMap().list();
    }

    private static List<Map<String, Object>> byAction(Handle h) {
        return h.createQuery("SELECT org_id, action, received_at, conflict_id FROM conflicts_by_action ORDER BY 1, 2, 3, 4")
                .mapToMap().list();
    }

    private static List<Map<String, Object>> expectedByAction(Handle h) {
        return h.createQuery("""
                SELECT org_id, action, received_at, id AS conflict_id FROM policy_conflicts ORDER BY 1, 2, 3, 4""")
                .mapToMap().list();
    }

    private static List<Map<String, Object>> expectedKeys(Handle h) {
        return h.createQuery("""
                SELECT DISTINCT c.org_id, k AS search_key, c.id AS conflict_id
                  FROM policy_conflicts c,
                       unnest(ARRAY[c.target, c.dedup_key]
                              || ARRAY(SELECT r ->> 'policy_id' FROM jsonb_array_elements(c.rules) AS r)) AS k
                 WHERE k IS NOT NULL
                 ORDER BY 1, 2, 3""").mapToMap().list();
    }

    private static List<Map<String, Object>> spend(Handle h) {
        return h.createQuery("SELECT org_id, month, cost_usd, calls FROM org_spend_by_month ORDER BY 1, 2")
                .mapToMap().list();
    }

    private static List<Map<String, Object>> spendSummed(Handle h) {
        return h.createQuery("""
                SELECT org_id, ledger_month(created_at) AS month, sum(cost_usd) AS cost_usd, count(*) AS calls
                  FROM llm_usage_events GROUP BY 1, 2 ORDER BY 1, 2""").mapToMap().list();
    }

    private static List<Map<String, Object>> usage(Handle h) {
        return h.createQuery("""
                SELECT org_id, month, provider, model, sum(calls)::bigint AS calls,
                       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
                       sum(cost_usd) AS cost_usd
                  FROM org_usage_by_month GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4""").mapToMap().list();
    }

    private static List<Map<String, Object>> usageSummed(Handle h) {
        return h.createQuery("""
                SELECT org_id, ledger_month(created_at) AS month, provider, model, count(*) AS calls,
                       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
                       sum(cost_usd) AS cost_usd
                  FROM llm_usage_events GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4""").mapToMap().list();
    }
}
