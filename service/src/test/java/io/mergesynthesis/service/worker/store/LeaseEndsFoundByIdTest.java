package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.SqlFiles;
import io.mergesynthesis.service.db.StatementSamples;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every statement that ends a lease finds its row through the primary key, whatever the statistics say (schema
 * 32). The statistics here are taken with nothing leased, as before every drain; then 200 leases are held. A fence
 * that named the state matched the predicate of the index of leases by expiry, and the planner read that whole
 * index, all 200 leases, for each row it wrote.
 */
class LeaseEndsFoundByIdTest {

    private static final int ORGS = 10;
    private static final int LEASED = 200;

    private static WorkerFixture fixture;
    private static ScopedTransactions transactions;
    private static UUID org;

    @BeforeAll
    static void leasesHeldAfterStatisticsTakenWithNone() {
        fixture = new WorkerFixture();
        transactions = fixture.transactionsOnOwnPool("lease-ends", 2);
        List<UUID> orgs = IntStream.range(0, ORGS).mapToObj(o -> UUID.randomUUID()).toList();
        org = orgs.get(0);
        fixture.admin.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), (CAST(:orgs AS uuid[]))[1 + i % :orgCount], 'end-' || i, 'tool_call',
                               'jira.read', '[]', 'p1', now(), now() - interval '1 minute'
                        FROM generate_series(1, 2000) AS i""")
                .bind("orgs", orgs.stream().map(UUID::toString).toArray(String[]::new))
                .bind("orgCount", ORGS)
                .execute());
        fixture.admin.useHandle(h -> h.execute("ANALYZE policy_conflicts"));
        int leased = transactions.crossTenant(h -> ConflictLeases.claim(h, "lease-ends", LEASED,
                Duration.ofMinutes(5), Ticker.SYSTEM)).size();
        assertThat(leased).isEqualTo(LEASED);
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"store_merge", "store_merge_with_calls", "release_for_retry", "hand_back", "park",
            "mark_permanent"})
    void theRowIsFoundByItsIdOnAGenericPlanAndACustomOne(String statement) {
        String sql = SqlFiles.of(ConflictLeases.class, statement);
        for (String mode : List.of("force_generic_plan", "force_custom_plan")) {
            String plan = transactions.inOrg(org, h -> {
                h.execute("SET LOCAL plan_cache_mode = " + mode);
                return String.join("\n", h.createQuery("EXPLAIN " + sql).bindMap(StatementSamples.BY_NAME).mapTo(String.class).list());
            });
            assertThat(plan).as(statement + ", " + mode)
                    .contains("policy_conflicts_pkey")
                    .doesNotContain("policy_conflicts_leases_by_expiry");
        }
    }

    @Test
    void onlyARowInProgressHasALeaseOwner() {
        assertThatThrownBy(() -> fixture.admin.useHandle(h -> h.execute(
                "UPDATE policy_conflicts SET lease_owner = 'someone' WHERE synthesis_state = 'pending'")))
                .hasMessageContaining("policy_conflicts_owner_only_in_progress");
        assertThat(fixture.count("synthesis_state = 'in_progress' AND lease_owner IS NULL")).isZero();
    }
}
