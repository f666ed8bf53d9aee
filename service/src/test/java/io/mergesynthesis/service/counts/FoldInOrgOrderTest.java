package io.mergesynthesis.service.counts;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * A fold of more orgs than one statement takes goes through them in org order, each statement after the last org of
 * the one before: every org's rows end as one per pair (and one per month and model of usage) with the same sums,
 * in as many transactions as the orgs need and no more.
 */
class FoldInOrgOrderTest {

    private static final int ORGS = 1_234;

    @Test
    void foldsEveryOrgOnceInOrgOrderWhateverTheBacklog() {
        TestDatabase database = TestDatabase.fresh();
        Jdbi jdbi = database.jdbi();
        jdbi.useHandle(h -> {
            // Per org: pending/open in 3 rows, one of them moved on to done; and 4 usage rows over 2 months, 1 model.
            h.createUpdate("""
                    INSERT INTO org_conflict_counts (org_id, into_state, into_status, out_state, out_status, n)
                    SELECT md5('org-' || o)::uuid, 'pending', 'open', NULL, NULL, 1 + r
                      FROM generate_series(1, :orgs) AS o, generate_series(1, 3) AS r
                    UNION ALL
                    SELECT md5('org-' || o)::uuid, 'done', 'open', 'pending', 'open', 2
                      FROM generate_series(1, :orgs) AS o""").bind("orgs", ORGS).execute();
            h.createUpdate("""
                    INSERT INTO org_usage_by_month (org_id, month, provider, model, calls, input_tokens, output_tokens,
                                                    cache_read_tokens, cache_write_tokens, cost_usd)
                    SELECT md5('org-' || o)::uuid, date '2026-10-01' + (r % 2) * interval '1 month', 'anthropic',
                           'small', 1, 10 * r, 20, 0, 0, 0.000001 * o
                      FROM generate_series(1, :orgs) AS o, generate_series(1, 4) AS r""").bind("orgs", ORGS).execute();
        });
        List<Map<String, Object>> countsBefore = counts(jdbi);
        List<Map<String, Object>> usageBefore = usage(jdbi);

        ConflictCountUpkeep upkeep = new ConflictCountUpkeep(database.transactions());
        long transactions = upkeep.fold();

        assertThat(transactions).as("500 orgs a transaction: 500, 500, then 234 and done").isEqualTo(3);
        assertThat(counts(jdbi)).isEqualTo(countsBefore).hasSize(2 * ORGS);
        assertThat(rows(jdbi, "org_conflict_counts")).isEqualTo(2L * ORGS);
        assertThat(usage(jdbi)).isEqualTo(usageBefore).hasSize(2 * ORGS);
        assertThat(rows(jdbi, "org_usage_by_month")).isEqualTo(2L * ORGS);
        assertThat(upkeep.fold()).as("nothing left: one look, no org folded").isEqualTo(1);
    }

    private static List<Map<String, Object>> counts(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery(
                "SELECT org_id, synthesis_state, inbox_status, n FROM org_conflict_totals ORDER BY 1, 2, 3")
                .mapToMap().list());
    }

    private static List<Map<String, Object>> usage(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                SELECT org_id, month, sum(calls)::bigint AS calls, sum(input_tokens)::bigint AS input_tokens,
                       sum(cost_usd) AS cost_usd
                  FROM org_usage_by_month GROUP BY 1, 2 ORDER BY 1, 2""").mapToMap().list());
    }

    private static long rows(Jdbi jdbi, String table) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
    }
}
