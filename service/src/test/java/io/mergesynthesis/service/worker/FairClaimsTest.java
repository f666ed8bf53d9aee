package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fair claims (ADR 0069): while several orgs have conflicts waiting, the claims of every replica on the database
 * give each org its share of the calls, weighted, whatever the size and order of their backlogs; a conflict of an
 * org with nothing else waiting is taken within a few calls however long another org's backlog is. Counted here
 * in calls the synthesizer was asked to make, per org, with two or three replicas claiming from one database.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FairClaimsTest {

    /**
     * Records the org of every call as it starts, then waits for the test to let it answer: the test meters the
     * calls out, so the backlogs last as long as it needs them to. Each answer is a paid call, as a provider's is:
     * the shares are shares of paid calls, and the pool holds no leases ahead of its workers while its merges
     * are paid for (ADR 0077), however quickly the test lets them through.
     */
    private static final class MeteredSynthesizer implements MergeSynthesizer {

        private final List<UUID> callsByOrg = Collections.synchronizedList(new ArrayList<>());
        private final Semaphore answers = new Semaphore(0);
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "metered";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            return synthesizeWithCalls(conflict, model).merge();
        }

        @Override
        public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            callsByOrg.add(conflict.orgId());
            answers.acquire();
            return PayingSynthesizer.paid(stub.synthesize(conflict, model), PayingSynthesizer.call(Pass.PRIMARY,
                    "metered", 100, 20, "0.000400", Disposition.ANSWER));
        }

        void answer(int calls) {
            answers.release(calls);
        }

        /** Lets every call through from now on. */
        void answerAll() {
            answers.release(Integer.MAX_VALUE / 2);
        }

        int started() {
            return callsByOrg.size();
        }

        List<UUID> calls() {
            synchronized (callsByOrg) {
                return List.copyOf(callsByOrg);
            }
        }

        /** Calls per org among the first {@code window} calls. */
        Map<UUID, Long> shares(int window) {
            return calls().subList(0, window).stream()
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        }
    }

    private static UUID org(String seed) {
        return UUID.nameUUIDFromBytes(seed.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** {@code count} pending conflicts of one org, oldest first by a millisecond each, in one statement. */
    private static void backlog(WorkerFixture fixture, UUID org, int count) {
        fixture.admin.useHandle(handle -> handle.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), :org, 'backlog-' || i, 'tool_call', 'jira.read',
                               jsonb_set(CAST(:rules AS jsonb), '{0,scope_id}', to_jsonb(CAST(:org AS text))), 'p1',
                               now(), now() - interval '1 hour' + i * interval '1 millisecond'
                        FROM generate_series(1, :count) AS i""")
                .bind("org", org)
                .bind("rules", WorkerFixture.rules("jira.read"))
                .bind("count", count)
                .execute());
    }

    private static UUID oneConflict(WorkerFixture fixture, UUID org) {
        UUID id = UUID.randomUUID();
        fixture.admin.useHandle(handle -> handle.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                        VALUES (:id, :org, :key, 'tool_call', 'jira.read',
                                jsonb_set(CAST(:rules AS jsonb), '{0,scope_id}', to_jsonb(CAST(:org AS text))), 'p1',
                                now())""")
                .bind("id", id)
                .bind("org", org)
                .bind("key", id.toString())
                .bind("rules", WorkerFixture.rules("jira.read"))
                .execute());
        // As ingest does: the pools that listen hear of it at once.
        fixture.admin.useHandle(handle -> handle.execute("SELECT pg_notify(?, '')", ConflictStore.PENDING_CHANNEL));
        return id;
    }

    private static void settings(WorkerFixture fixture, UUID org, Integer weight, String budget) {
        fixture.admin.useHandle(handle -> handle.createUpdate("""
                        INSERT INTO org_synthesis_settings (org_id, weight, monthly_budget_usd)
                        VALUES (:org, :weight, CAST(:budget AS numeric))""")
                .bind("org", org)
                .bind("weight", weight == null ? 1 : weight)
                .bind("budget", budget)
                .execute());
    }

    private static List<SynthesisPool> startReplicas(WorkerFixture fixture, MergeSynthesizer synthesizer,
                                                     int replicas, int workers) throws Exception {
        List<SynthesisPool> pools = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            SynthesisPool pool = fixture.replica(WorkerFixture.settings("r" + r).workers(workers).listen(true),
                    synthesizer).pool();
            pool.start();
            pools.add(pool);
        }
        return pools;
    }

    /** Meters {@code calls} more calls out and waits until the workers have started that many more. */
    private static void answerAndWait(MeteredSynthesizer synthesizer, int calls, int startedAtLeast) {
        synthesizer.answer(calls);
        Wait.until(startedAtLeast + " calls started", Duration.ofSeconds(30),
                () -> synthesizer.started() >= startedAtLeast);
    }

    @Test
    void aNewOrgsConflictIsTakenWithinAFewCallsWhateverAnotherOrgsBacklog() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID busy = org("org-with-a-backlog");
            UUID newcomer = org("org-with-one-conflict");
            backlog(fixture, busy, 300);
            MeteredSynthesizer synthesizer = new MeteredSynthesizer();
            List<SynthesisPool> pools = startReplicas(fixture, synthesizer, 2, 2);
            answerAndWait(synthesizer, 0, 4);
            answerAndWait(synthesizer, 20, 24);

            List<Integer> heardBefore = pools.stream().map(SynthesisPool::notificationsHeard).toList();
            UUID single = oneConflict(fixture, newcomer);
            int before = synthesizer.started();
            // Answered once both replicas have heard of it, as they would long before a real call ends (how soon a
            // NOTIFY arrives is the database's, not the claim's), and then one call per worker at a time, as calls
            // of one length end: the stubbed calls would otherwise run hundreds in the time a walk of the waiting
            // orgs takes, where real ones run none.
            Wait.until("both replicas heard of the newcomer's conflict", Duration.ofSeconds(15),
                    () -> IntStream.range(0, pools.size())
                            .allMatch(r -> pools.get(r).notificationsHeard() > heardBefore.get(r)));
            for (int round = 1; !synthesizer.calls().contains(newcomer); round++) {
                assertThat(round).as("rounds of one call per worker before the newcomer's started").isLessThan(4);
                answerAndWait(synthesizer, 4, synthesizer.started() + 4);
            }
            synthesizer.answerAll();
            Wait.until("the newcomer's conflict merged", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(single, "synthesis_state")));

            int position = synthesizer.calls().indexOf(newcomer);
            // Four calls were in hand when it arrived, and both replicas had heard of it. In the first round each
            // store that walks still claims on the picture it had, and so may its other worker's store beside it;
            // in the next a claim on either replica's new picture takes the newcomer's. Oldest first, it would
            // have come after 276.
            assertThat(position - before).as("calls started between its arrival and its own").isLessThanOrEqualTo(8);
            // Read from the calls, not from the rows done: the pool goes on draining the backlog while the wait
            // above looks.
            assertThat(position).as("calls before its own, of a backlog of 300").isLessThan(100);
        }
    }

    @Test
    void orgsWithBacklogsOf100And1000And10000GetEqualShares() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            List<UUID> orgs = List.of(org("small"), org("medium"), org("large"));
            // The largest backlog is the oldest, as when one tenant imports before the others report.
            backlog(fixture, orgs.get(2), 10_000);
            backlog(fixture, orgs.get(1), 1_000);
            backlog(fixture, orgs.get(0), 100);
            MeteredSynthesizer synthesizer = new MeteredSynthesizer();
            startReplicas(fixture, synthesizer, 3, 2);
            answerAndWait(synthesizer, 240, 240);

            // Within a fifth of the due share, over as many calls as leave the smallest backlog some to spare at its
            // share (80 of 100): claims that meet give an org a call more, a few calls in all.
            Map<UUID, Long> shares = synthesizer.shares(240);
            for (UUID org : orgs) {
                assertThat(shares.getOrDefault(org, 0L)).as("calls of %s among the first 240 (all: %s)", org, shares)
                        .isBetween(64L, 96L);
            }
        }
    }

    @Test
    void anOrgOfWeightTwoGetsTwiceTheShareOfAnOrgOfWeightOne() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID one = org("weight-one");
            UUID two = org("weight-two");
            settings(fixture, two, 2, null);
            backlog(fixture, one, 1_000);
            backlog(fixture, two, 1_000);
            MeteredSynthesizer synthesizer = new MeteredSynthesizer();
            startReplicas(fixture, synthesizer, 2, 2);
            answerAndWait(synthesizer, 300, 300);

            // Within a fifth of the due share. Two claims at the same moment can give one org the same start, a call
            // more for it each time they meet, and they meet more often on a busy machine: over 300 calls those
            // few weigh half what they would over 150.
            Map<UUID, Long> shares = synthesizer.shares(300);
            assertThat(shares.getOrDefault(one, 0L)).as("weight 1's calls among 300").isBetween(80L, 120L);
            assertThat(shares.getOrDefault(two, 0L)).as("weight 2's calls among 300").isBetween(180L, 220L);
        }
    }

    @Test
    void anOrgHeldByItsBudgetDoesNotEatTheShareOfAnOrgThatCanBeServed() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID held = org("budget-spent");
            UUID served = org("budget-left");
            settings(fixture, held, null, "0");
            backlog(fixture, held, 200);
            backlog(fixture, served, 100);
            MeteredSynthesizer synthesizer = new MeteredSynthesizer();
            synthesizer.answerAll();
            startReplicas(fixture, synthesizer, 2, 2);

            Wait.until("the served org's conflicts merged", Duration.ofSeconds(30),
                    () -> fixture.count("org_id = '" + served + "' AND synthesis_state = 'done'") == 100);
            Wait.until("the held org's conflicts parked", Duration.ofSeconds(30),
                    () -> fixture.count("org_id = '" + held + "' AND synthesis_state = 'waiting_budget'") == 200);
            assertThat(synthesizer.calls()).as("no call for the org whose budget is spent").doesNotContain(held)
                    .hasSize(100);
        }
    }

    @Test
    void aWeightOutsideItsRangeIsRefusedByTheSchemaToo() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            assertThatThrownBy(() -> settings(fixture, org("weightless"), 0, null))
                    .hasMessageContaining("org_synthesis_settings_weight_check");
        }
    }
}
