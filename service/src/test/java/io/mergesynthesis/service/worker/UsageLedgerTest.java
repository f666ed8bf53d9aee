package io.mergesynthesis.service.worker;

import static io.mergesynthesis.service.worker.PayingSynthesizer.call;
import static io.mergesynthesis.service.worker.PayingSynthesizer.paid;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.pool.BudgetWaker;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker's side of paid synthesis, on the real database: every call a synthesizer reports becomes exactly one
 * ledger row, in the transaction that ends its attempt; a deferral hands the conflict back with no attempt counted;
 * a spent budget parks conflicts without a call until it rises; a resolved conflict costs no call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UsageLedgerTest {

    @Test
    void aStoredMergeCommitsItsCallsWithItAndAReplacedAnswerIsDiscarded() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a");
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> paid(merge,
                    call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.DISCARDED),
                    call(Pass.ESCALATION, "large", 300, 60, "0.002100", Disposition.ANSWER)));
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1"), synthesizer);
            replica.pool().start();
            Wait.until("the merge stored", Duration.ofSeconds(20),
                    () -> fixture.count("synthesis_state = 'done'") == 1);

            List<Map<String, Object>> rows = ledger(fixture, id);
            assertThat(rows).hasSize(2);
            assertThat(rows).extracting(r -> r.get("pass"), r -> r.get("model"), r -> r.get("outcome"))
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple("primary", "small", "discarded"),
                            org.assertj.core.groups.Tuple.tuple("escalation", "large", "stored"));
            assertThat(rows).allSatisfy(r -> {
                assertThat(r.get("attempt")).isEqualTo(1);
                assertThat(r.get("cache_read_tokens")).isEqualTo(5L);
                assertThat(r.get("cache_write_tokens")).isEqualTo(7L);
                assertThat(r.get("latency_ms")).isEqualTo(42);
            });
            assertThat(sumCost(fixture, id)).isEqualByComparingTo("0.002500");
            // The ledger rows and the merge were one commit: they carry one transaction id.
            long transactions = fixture.admin.withHandle(h -> h.createQuery("""
                    SELECT count(DISTINCT xmin::text) FROM (
                        SELECT xmin FROM llm_usage_events WHERE conflict_id = :id
                        UNION ALL SELECT xmin FROM conflict_events WHERE conflict_id = :id
                            AND event_type = 'merge_synthesized') x""").bind("id", id).mapTo(Long.class).one());
            assertThat(transactions).isEqualTo(1L);
        }
    }

    @Test
    void aCallPutOnRecordBeforeAnEscalationIsOneRowSettledWhenTheAttemptEnds() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a");
            ProviderCall primary = call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER);
            CountDownLatch recorded = new CountDownLatch(1);
            CountDownLatch escalationAnswered = new CountDownLatch(1);
            MergeSynthesizer escalating = new MergeSynthesizer() {
                private final MergeSynthesizer stub = WorkerFixture.stub();

                @Override
                public String name() {
                    return "escalating";
                }

                @Override
                public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model) {
                    throw new UnsupportedOperationException("the worker asks with a call recorder");
                }

                @Override
                public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model,
                                                     CallRecorder early) throws SynthesisException,
                        InterruptedException {
                    early.answered(primary);
                    recorded.countDown();
                    escalationAnswered.await();
                    // The escalation failed: the primary's answer, recorded early, is the one stored.
                    return new Synthesis(stub.synthesize(conflict, model), List.of(primary,
                            call(Pass.ESCALATION, "large", 300, 0, "0.000900", Disposition.FAILED)));
                }
            };
            fixture.replica(WorkerFixture.settings("r1"), escalating).pool().start();
            assertThat(recorded.await(20, TimeUnit.SECONDS)).isTrue();
            // While the second call runs, the first is on record already, as not stored: a kill now loses one.
            Wait.until("the primary call on record", Duration.ofSeconds(5), () -> ledger(fixture, id).size() == 1);
            assertThat(ledger(fixture, id).get(0).get("outcome")).isEqualTo("discarded");

            escalationAnswered.countDown();
            Wait.until("the merge stored", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            List<Map<String, Object>> rows = ledger(fixture, id);
            assertThat(rows).extracting(r -> r.get("pass") + ":" + r.get("outcome"))
                    .containsExactlyInAnyOrder("primary:stored", "escalation:failed");
            assertThat(rows).filteredOn(r -> "primary".equals(r.get("pass")))
                    .extracting(r -> r.get("id")).containsExactly(primary.id());
        }
    }

    @Test
    void aRateLimitHandsTheConflictBackUncountedAndRecordsTheAnsweredCall() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a");
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> {
                throw new SynthesisDeferred(SynthesisDeferred.Cause.RATE_LIMITED, "anthropic", Duration.ofSeconds(30),
                        "429 from anthropic", List.of(call(Pass.PRIMARY, "small", 0, 0, "0",
                        Disposition.RATE_LIMITED)));
            });
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1").maxAttempts(1), synthesizer);
            replica.pool().start();
            Wait.until("the rate-limited call recorded", Duration.ofSeconds(20),
                    () -> ledger(fixture, id).size() == 1);
            Wait.until("the conflict handed back", Duration.ofSeconds(20),
                    () -> "pending".equals(fixture.column(id, "synthesis_state")));

            assertThat(ledger(fixture, id).get(0).get("outcome")).isEqualTo("rate_limited");
            // Not counted: with maxAttempts 1, a counted attempt would have left the marker instead.
            assertThat(fixture.column(id, "attempts")).isEqualTo("0");
            assertThat(fixture.column(id, "failure_marker")).isNull();
            boolean waits = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT not_before > now() + interval '20 seconds' FROM policy_conflicts WHERE id = :id")
                    .bind("id", id).mapTo(Boolean.class).one());
            assertThat(waits).as("claimable only after retry-after").isTrue();
            assertThat(history(fixture, id)).containsExactly("deferred:rate_limited");
            assertThat(synthesizer.asked.get()).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isZero();
            assertThat(replica.registry().getSampleValue("synthesis_deferrals_total")).isEqualTo(1.0);
        }
    }

    @Test
    void aProviderThatAsksToWaitStopsTheReplicaClaimingUntilThen() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            List<UUID> ids = List.of(fixture.insertConflict("jira.a"), fixture.insertConflict("jira.b"),
                    fixture.insertConflict("jira.c"));
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> {
                throw new SynthesisDeferred(SynthesisDeferred.Cause.OVERLOADED, "anthropic", Duration.ofSeconds(30),
                        "529 from anthropic", List.of());
            });
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1").workers(1), synthesizer);
            replica.pool().start();
            Wait.until("the first conflict handed back", Duration.ofSeconds(20),
                    () -> fixture.count("synthesis_state = 'pending' AND not_before > now() + interval '20 seconds'") == 1);
            // Without the pause the one worker would claim the next conflict at once, every poll (100 ms here),
            // only to hand it back. Ten more rounds of the claim loop show that nothing more was claimed.
            long rounds = replica.pool().claimRounds();
            Wait.until("ten more rounds of the claim loop", Duration.ofSeconds(20),
                    () -> replica.pool().claimRounds() >= rounds + 10);
            assertThat(synthesizer.asked.get()).isEqualTo(1);
            assertThat(fixture.count("attempts = 0 AND synthesis_state = 'pending'")).isEqualTo(ids.size());
        }
    }

    @Test
    void anInvalidAnswerIsAFailedCallAndACountedInvalidJsonAttempt() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a");
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> {
                throw new InvalidAnswerException("names policy p9, which the conflict does not have",
                        List.of(call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.FAILED)));
            });
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1").maxAttempts(2), synthesizer);
            replica.pool().start();
            Wait.until("the marker after two attempts", Duration.ofSeconds(20),
                    () -> fixture.count("synthesis_state = 'max_attempts_exceeded'") == 1);

            assertThat(fixture.column(id, "last_failure_reason")).isEqualTo("invalid_json");
            assertThat(ledger(fixture, id)).extracting(r -> r.get("attempt") + ":" + r.get("outcome"))
                    .containsExactlyInAnyOrder("1:failed", "2:failed");
            assertThat(history(fixture, id)).containsExactly("transient_failure:invalid_json",
                    "permanent_failure:invalid_json");
            assertThat(replica.failures(FailureReason.INVALID_JSON)).isEqualTo(2.0);
        }
    }

    @Test
    void aSpentBudgetParksConflictsWithoutACallUntilItRises() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a", "org-budget");
            UUID org = UUID.fromString(fixture.column(id, "org_id"));
            fixture.admin.useHandle(h -> h.createUpdate(
                    "INSERT INTO org_synthesis_settings (org_id, monthly_budget_usd) VALUES (:org, 0.01)")
                    .bind("org", org).execute());
            UUID earlier = fixture.insertConflict("jira.earlier", "org-budget");
            fixture.admin.useHandle(h -> h.createUpdate("""
                    UPDATE policy_conflicts SET synthesis_state = 'done', suggested_merge = '{}'::jsonb WHERE id = :id;
                    INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                        output_tokens, cost_usd, latency_ms, outcome)
                    VALUES (gen_random_uuid(), :org, :id, 1, 'primary', 'anthropic', 'small', 1, 1, 0.01, 1, 'stored')""")
                    .bind("org", org).bind("id", earlier).execute());
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> paid(merge,
                    call(Pass.PRIMARY, "small", 100, 20, "0.000400", Disposition.ANSWER)));
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("r1"), synthesizer);
            replica.pool().start();
            Wait.until("the conflict waiting for budget", Duration.ofSeconds(20),
                    () -> "waiting_budget".equals(fixture.column(id, "synthesis_state")));
            assertThat(synthesizer.asked.get()).isZero();
            assertThat(fixture.column(id, "attempts")).isEqualTo("0");
            assertThat(history(fixture, id)).containsExactly("deferred:budget");

            fixture.admin.useHandle(h -> h.createUpdate(
                    "UPDATE org_synthesis_settings SET monthly_budget_usd = 1 WHERE org_id = :org")
                    .bind("org", org).execute());
            // The budget was raised by hand, not through the API: the waker's pass lets the conflict out.
            assertThat(new BudgetWaker(replica.transactions(), Duration.ofHours(1)).wake()).isEqualTo(1);
            Wait.until("the merge stored once the budget rose", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            assertThat(synthesizer.asked.get()).isEqualTo(1);
        }
    }

    @Test
    void aConflictResolvedBeforeItsSynthesisCostsNoCall() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.a");
            fixture.admin.useHandle(h -> h.createUpdate("""
                    UPDATE policy_conflicts SET inbox_status = 'resolved', resolution = 'manual', resolved_at = now()
                    WHERE id = :id""").bind("id", id).execute());
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> paid(merge));
            fixture.replica(WorkerFixture.settings("r1"), synthesizer).pool().start();
            Wait.until("the conflict marked not needed", Duration.ofSeconds(20),
                    () -> "not_needed".equals(fixture.column(id, "synthesis_state")));
            assertThat(synthesizer.asked.get()).isZero();
            assertThat(fixture.column(id, "lease_owner")).isNull();
        }
    }

    @Test
    void eachOrgsMonthTotalIsItsLedgerSummedToTheMicroDollarWithoutADeadlock() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            // Three orgs; two replicas whose batches mix them, each merge paying two calls of odd amounts.
            fixture.insertConflicts(600, "jira.a");
            UUID earlier = fixture.insertConflict("jira.earlier", "org-1");
            fixture.admin.useHandle(h -> h.createUpdate("""
                    UPDATE policy_conflicts SET synthesis_state = 'done', suggested_merge = '{}'::jsonb WHERE id = :id;
                    INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                        output_tokens, cost_usd, latency_ms, outcome, created_at)
                    VALUES (gen_random_uuid(), md5('org-1')::uuid, :id, 1, 'primary', 'anthropic', 'small', 1, 1,
                            0.000000123, 1, 'stored', date_trunc('month', now()) - interval '3 days')""")
                    .bind("id", earlier).execute());
            long deadlocksBefore = deadlocks(fixture);
            PayingSynthesizer synthesizer = new PayingSynthesizer(merge -> paid(merge,
                    call(Pass.PRIMARY, "small", 100, 20, "0.000400317", Disposition.DISCARDED),
                    call(Pass.ESCALATION, "large", 300, 60, "0.002100009", Disposition.ANSWER)));
            fixture.replica(WorkerFixture.settings("r1").workers(8), synthesizer).pool().start();
            fixture.replica(WorkerFixture.settings("r2").workers(8), synthesizer).pool().start();
            Wait.until("every merge stored", Duration.ofSeconds(50),
                    () -> fixture.count("synthesis_state = 'done'") == 601);

            List<Map<String, Object>> totals = fixture.admin.withHandle(h -> h.createQuery("""
                    SELECT org_id, month, cost_usd, calls FROM org_spend_by_month ORDER BY org_id, month""")
                    .mapToMap().list());
            List<Map<String, Object>> summed = fixture.admin.withHandle(h -> h.createQuery("""
                    SELECT org_id, ledger_month(created_at) AS month, sum(cost_usd) AS cost_usd, count(*) AS calls
                      FROM llm_usage_events GROUP BY 1, 2 ORDER BY 1, 2""").mapToMap().list());
            assertThat(totals).hasSize(4).isEqualTo(summed);
            assertThat(summed).extracting(r -> r.get("calls")).containsOnly(1L, 400L);
            // Usage by model is kept the same way, as rows folded later: the same sums before the fold and after.
            assertThat(usageKept(fixture)).hasSize(7).isEqualTo(usageSummed(fixture));
            new io.mergesynthesis.service.counts.ConflictCountUpkeep(fixture.database.transactions()).fold();
            assertThat(usageKept(fixture)).isEqualTo(usageSummed(fixture));
            long usageRows = fixture.admin.withHandle(h -> h.createQuery("SELECT count(*) FROM org_usage_by_month")
                    .mapTo(Long.class).one());
            assertThat(usageRows).isEqualTo(7);
            // The budget check reads this month's row: the ledger's sum for the month, last month's row apart.
            BigDecimal spent = fixture.admin.withHandle(h -> h.createQuery(
                    "SELECT org_month_spend(md5('org-1')::uuid)").mapTo(BigDecimal.class).one());
            assertThat(spent).isEqualByComparingTo(new BigDecimal("0.002500326").multiply(BigDecimal.valueOf(200)));
            assertThat(deadlocks(fixture)).isEqualTo(deadlocksBefore);
        }
    }

    private static List<Map<String, Object>> usageKept(WorkerFixture fixture) {
        return fixture.admin.withHandle(h -> h.createQuery("""
                SELECT org_id, month, provider, model, sum(calls)::bigint AS calls, sum(input_tokens)::bigint AS input_tokens,
                       sum(output_tokens)::bigint AS output_tokens, sum(cache_read_tokens)::bigint AS cache_read_tokens,
                       sum(cache_write_tokens)::bigint AS cache_write_tokens, sum(cost_usd) AS cost_usd
                  FROM org_usage_by_month GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4""").mapToMap().list());
    }

    private static List<Map<String, Object>> usageSummed(WorkerFixture fixture) {
        return fixture.admin.withHandle(h -> h.createQuery("""
                SELECT org_id, ledger_month(created_at) AS month, provider, model, count(*) AS calls,
                       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
                       sum(cache_read_tokens)::bigint AS cache_read_tokens, sum(cache_write_tokens)::bigint AS cache_write_tokens,
                       sum(cost_usd) AS cost_usd
                  FROM llm_usage_events GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4""").mapToMap().list());
    }

    /** Deadlocks the server detected in the test's database, once each backend's figures have reached it. */
    private static long deadlocks(WorkerFixture fixture) throws InterruptedException {
        // A backend reports its figures at most once a second, and no query can make another backend report.
        Thread.sleep(1_100);
        return fixture.admin.withHandle(h -> h.createQuery(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()").mapTo(Long.class).one());
    }

    private static List<Map<String, Object>> ledger(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(h -> h.createQuery(
                "SELECT * FROM llm_usage_events WHERE conflict_id = :id ORDER BY created_at, pass")
                .bind("id", id).mapToMap().list());
    }

    private static BigDecimal sumCost(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(h -> h.createQuery(
                "SELECT sum(cost_usd) FROM llm_usage_events WHERE conflict_id = :id")
                .bind("id", id).mapTo(BigDecimal.class).one());
    }

    private static List<String> history(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(h -> h.createQuery(
                "SELECT outcome || ':' || reason FROM synthesis_attempt_history WHERE conflict_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }
}
