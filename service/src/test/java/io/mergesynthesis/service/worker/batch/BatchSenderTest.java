package io.mergesynthesis.service.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.attempt.MergeAcceptance;
import io.mergesynthesis.service.worker.attempt.SuggestedMergeJson;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What one round of a batch lane sends for an org, with no worker pool beside it. Two replicas' batch lanes
 * sending for one org at the same moment size their batches one after the other: what the org may still spend is
 * read, filled and reserved under a hold on the org's budget, so the two batches together reserve no more than
 * the room and one request's cost, never the room twice. An org in lane auto sends what waits beyond
 * {@code llm.batch.autoAbove}, and nothing while no more wait.
 */
class BatchSenderTest {

    private static TestDatabase database;
    private static ScopedTransactions transactions;
    private static StandInProvider standIn;
    private static LlmSettings llm;

    @BeforeAll
    static void start() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
        standIn = TestApp.standIn(new Behaviour().usage(1000, 200, 0, 0));
        llm = new LlmSettings();
        llm.getProviders().put("standin", new ProviderSettings(ProviderType.ANTHROPIC, standIn.anthropicBaseUrl(),
                TestApp.STAND_IN_KEY));
        llm.getModels().put("standin/small", new ModelPrice(BigDecimal.ONE, new BigDecimal("5")));
        llm.setPrimaryModel("standin/small");
        // Fewer than an org has waiting, so that each sender finds conflicts of its own to put in a batch.
        llm.getBatch().setMaxRequests(8);
        llm.getBatch().setAutoAbove(4);
    }

    @AfterAll
    static void stop() {
        standIn.close();
    }

    @Test
    void twoSendersAtOnceReserveTheRoomOnceWithAtMostOneRequestOver() throws Exception {
        BatchRoute route = BatchRoute.of(llm, null).orElseThrow();
        for (int round = 0; round < 5; round++) {
            UUID org = UUID.randomUUID();
            // A request may cost about three thousandths here: a budget of a hundredth holds three or four.
            BigDecimal budget = new BigDecimal("0.01");
            transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, budget, null, Lane.BATCH));
            for (int i = 0; i < 20; i++) {
                insert(org, "race-" + round + "-" + i);
            }
            CyclicBarrier together = new CyclicBarrier(2);
            List<CompletableFuture<Boolean>> senders = List.of(sendAt(together, org, route),
                    sendAt(together, org, route));
            CompletableFuture.allOf(senders.toArray(new CompletableFuture[0])).join();

            List<Map<String, Object>> batches = database.jdbi().withHandle(h -> h.createQuery(
                            "SELECT requests, reserved_cost_usd FROM llm_batches WHERE org_id = :org")
                    .bind("org", org).mapToMap().list());
            BigDecimal reserved = batches.stream().map(b -> (BigDecimal) b.get("reserved_cost_usd"))
                    .reduce(BigDecimal.ZERO, BigDecimal::add);
            int requests = batches.stream().mapToInt(b -> ((Number) b.get("requests")).intValue()).sum();
            assertThat(requests).as("requests sent in round " + round).isPositive();
            BigDecimal oneRequest = reserved.divide(BigDecimal.valueOf(requests), java.math.MathContext.DECIMAL64);
            assertThat(reserved.subtract(oneRequest)).as("what all but the last request reserve, round " + round)
                    .isLessThan(budget);
        }
    }

    @Test
    void anOrgInLaneAutoSendsWhatWaitsBeyondTheThresholdAndNothingBelowIt() throws Exception {
        BatchRoute route = BatchRoute.of(llm, null).orElseThrow();
        UUID org = UUID.randomUUID();
        transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, null, null, Lane.AUTO));
        int autoAbove = llm.getBatch().getAutoAbove();
        for (int i = 0; i < autoAbove + 3; i++) {
            insert(org, "auto-" + i);
        }
        assertThat(sender().send(org, Lane.AUTO, route)).as("a batch beyond the threshold").isTrue();
        assertThat(batchedOf(org)).as("conflicts batched").isEqualTo(3);

        assertThat(sender().send(org, Lane.AUTO, route)).as("nothing more at the threshold").isFalse();
        assertThat(batchedOf(org)).isEqualTo(3);
        long pending = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND synthesis_state = 'pending'")
                .bind("org", org).mapTo(Long.class).one());
        assertThat(pending).as("left to the interactive lane").isEqualTo(autoAbove);
    }

    @Test
    void aBatchFullByItsBytesLeavesTheRestForTheNextWithNoAttemptCounted() throws Exception {
        BatchRoute route = BatchRoute.of(llm, null).orElseThrow();
        UUID org = UUID.randomUUID();
        transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, null, null, Lane.BATCH));
        for (int i = 0; i < 3; i++) {
            insert(org, "bytes-" + i);
        }
        long before = llm.getBatch().getMaxBytes();
        llm.getBatch().setMaxBytes(1);
        try {
            assertThat(sender().send(org, Lane.BATCH, route)).isTrue();
        } finally {
            llm.getBatch().setMaxBytes(before);
        }
        assertThat(batchedOf(org)).as("the first request goes whatever its size").isEqualTo(1);
        List<Integer> attempts = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT attempts FROM policy_conflicts WHERE org_id = :org AND synthesis_state = 'pending'")
                .bind("org", org).mapTo(Integer.class).list());
        assertThat(attempts).containsExactly(0, 0);
    }

    @Test
    void aProviderHoldingItsMostBatchesIsSentNoMoreUntilOneIsDone() throws Exception {
        UUID org = UUID.randomUUID();
        transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, null, null, Lane.BATCH));
        insert(org, "in-flight-0");
        long held = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM llm_batches WHERE provider = 'standin' AND state <> 'done'")
                .mapTo(Long.class).one());
        int before = llm.getBatch().getMaxInFlight();
        try {
            llm.getBatch().setMaxInFlight((int) held);
            assertThat(sender().sendWaiting()).as("at its most").isZero();
            llm.getBatch().setMaxInFlight((int) held + 1);
            assertThat(sender().sendWaiting()).as("room for one").isEqualTo(1);
        } finally {
            llm.getBatch().setMaxInFlight(before);
        }
    }

    @Test
    void aModelsQueueOfEnqueuedTokensBoundsItsBatchesAndAFullQueueSendsNothing() throws Exception {
        BatchRoute route = BatchRoute.of(llm, null).orElseThrow();
        UUID org = UUID.randomUUID();
        transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, null, null, Lane.BATCH));
        for (int i = 0; i < 3; i++) {
            insert(org, "queue-" + i);
        }
        long tokens = sender().send(org, Lane.BATCH, route, 1);
        assertThat(tokens).as("one request's tokens, the first going whatever the room").isPositive();
        assertThat(batchedOf(org)).isEqualTo(1);
        long recorded = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT input_tokens FROM llm_batches WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(recorded).isEqualTo(tokens);

        long enqueued = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT sum(input_tokens) FROM llm_batches WHERE model = 'small' AND state <> 'done'")
                .mapTo(Long.class).one());
        int inFlight = llm.getBatch().getMaxInFlight();
        try {
            llm.getBatch().setMaxInFlight(Integer.MAX_VALUE);
            llm.getBatch().getEnqueuedTokens().put("standin/small", enqueued);
            assertThat(sender().sendWaiting()).as("the queue is full").isZero();
        } finally {
            llm.getBatch().getEnqueuedTokens().clear();
            llm.getBatch().setMaxInFlight(inFlight);
        }
        assertThat(batchedOf(org)).isEqualTo(1);
    }

    private static long batchedOf(UUID org) {
        return database.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND synthesis_state = 'batched'")
                .bind("org", org).mapTo(Long.class).one());
    }

    private static BatchSender sender() {
        return new BatchSender(new BatchRows(transactions), llm, new BatchClients(),
                new MergeAcceptance(new SuggestedMergeJson(), new SynthesisMetrics(new CollectorRegistry())),
                new BatchMetrics(new CollectorRegistry()), Clock.systemUTC());
    }

    private static CompletableFuture<Boolean> sendAt(CyclicBarrier together, UUID org, BatchRoute route) {
        BatchSender sender = sender();
        return CompletableFuture.supplyAsync(() -> {
            try {
                together.await();
                return sender.send(org, Lane.BATCH, route);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void insert(UUID org, String dedupKey) {
        transactions.inOrg(org, h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at)
                        VALUES (:id, :org, :key, 'tool_call', 'jira.create_issue',
                                CAST(:rules AS jsonb), 'p1', now())""")
                .bind("id", UUID.randomUUID()).bind("org", org).bind("key", dedupKey)
                .bind("rules", """
                        [{"policy_id": "p1", "scope": "org", "scope_id": "o", "effect": "deny", "target": "*"},
                         {"policy_id": "p2", "scope": "member", "scope_id": "m", "effect": "allow",
                          "target": "jira.create_issue"}]""")
                .execute());
    }
}
