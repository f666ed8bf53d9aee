package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The head of an org's pending rows stays cheap to read however many of its conflicts the claims before have taken
 * (schema 31). A request's conflicts share one {@code not_before}, and with B-tree deduplication their entries
 * shared posting lists that no scan could mark dead while one row in them still waited: every claim then visited
 * each row version its predecessors had taken. Here ten orgs' 2,000 conflicts arrive in one statement, 300 are
 * claimed one at a time (about 30 of each org), and the read of an org's next two goes through a few index
 * entries, not every one its org had taken.
 */
class ClaimHeadReadTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ORGS = 10;
    private static final int REPORTED = 2_000;
    private static final int CLAIMED = 300;

    private static WorkerFixture fixture;
    private static ScopedTransactions transactions;

    @BeforeAll
    static void database() {
        fixture = new WorkerFixture();
        transactions = fixture.transactionsOnOwnPool("head", 2);
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    @Test
    void theNextClaimReadsAFewIndexEntriesNotEveryRowItsOrgHadTaken() throws Exception {
        fixture.admin.useHandle(h -> h.execute("TRUNCATE policy_conflicts CASCADE"));
        // The orgs' conflicts come interleaved, as the rows of several tenants' requests land in one index page.
        List<UUID> orgs = IntStream.range(0, ORGS).mapToObj(o -> UUID.randomUUID()).toList();
        fixture.admin.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), (CAST(:orgs AS uuid[]))[1 + i % :orgCount], 'head-' || i, 'tool_call',
                               'jira.read', '[]', 'p1', now(), now() - interval '1 minute'
                        FROM generate_series(1, :count) AS i""")
                .bind("orgs", orgs.stream().map(UUID::toString).toArray(String[]::new))
                .bind("orgCount", ORGS).bind("count", REPORTED).execute());
        UUID org = orgs.get(0);
        for (int c = 0; c < CLAIMED; c++) {
            List<Lease> leased = transactions.crossTenant(h -> ConflictLeases.claim(h, "head", 1,
                    Duration.ofMinutes(5), Ticker.SYSTEM));
            assertThat(leased).hasSize(1);
        }

        String read = """
                SELECT ctid FROM policy_conflicts
                WHERE org_id = :org AND synthesis_state = 'pending' AND not_before <= now()
                ORDER BY not_before
                LIMIT 2""";
        String explained = fixture.admin.withHandle(h -> h.createQuery("EXPLAIN (FORMAT JSON) " + read)
                .bind("org", org).mapTo(String.class).one());
        assertThat(JSON.readTree(explained).toString()).as("read through the index of each org's pending rows")
                .contains("policy_conflicts_pending_by_org");

        // The index entries the read went through, counted by the server for this transaction alone.
        long entriesRead = fixture.admin.inTransaction(h -> {
            assertThat(h.createQuery(read).bind("org", org).mapToMap().list()).hasSize(2);
            return h.createQuery("SELECT pg_stat_get_xact_tuples_returned('policy_conflicts_pending_by_org'::regclass)")
                    .mapTo(Long.class).one();
        });
        // The two it keeps and a few not yet marked; with posting lists, about the 30 of its org claimed before.
        assertThat(entriesRead).as("index entries the read of the next two went through").isLessThan(15);
    }
}
