package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A conflict the synthesizer always fails on is tried maxAttempts times in all, then marked for good. */
class PoisonRowTest {

    private static final Duration BASE = Duration.ofMillis(25);

    static final class AlwaysFails implements MergeSynthesizer {
        @Override
        public String name() {
            return "always-fails";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model) throws SynthesisException {
            throw new SynthesisException("this conflict cannot be merged");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void onePoolTriesExactlyMaxAttemptsWithTheBackoffOfTheFormula() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.poison");
            CountingSynthesizer calls = new CountingSynthesizer(new AlwaysFails());
            Queue<RetryScheduled> retries = new ConcurrentLinkedQueue<>();
            Replica replica = fixture.replica(WorkerFixture.settings("only").baseBackoff(BASE), calls,
                    builder -> builder.onRetryScheduled(retries::add));
            replica.pool().start();

            Wait.until("the marker", Duration.ofSeconds(30),
                    () -> "max_attempts_exceeded".equals(fixture.column(id, "synthesis_state")));

            assertThat(calls.callsFor(id)).isEqualTo(3);
            assertMarked(fixture, id, FailureReason.SYNTHESIZER);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(2);
            assertThat(replica.attempts(Outcome.PERMANENT_FAILURE)).isEqualTo(1);
            assertThat(replica.failures(FailureReason.SYNTHESIZER)).isEqualTo(3);

            // Two retries were scheduled, after attempts 1 and 2, each waiting what the formula says, and the
            // database was told exactly that wait (not_before = release time + delay, on the database clock).
            List<RetryScheduled> scheduled = retries.stream()
                    .sorted(Comparator.comparingInt(RetryScheduled::attempt)).toList();
            assertThat(scheduled).extracting(RetryScheduled::attempt).containsExactly(1, 2);
            assertThat(scheduled).extracting(RetryScheduled::delay).containsExactly(BASE, BASE.multipliedBy(2));
            assertThat(scheduled).allSatisfy(retry -> {
                assertThat(Duration.between(retry.releasedAt(), retry.notBefore())).isEqualTo(retry.delay());
                assertThat(retry.reason()).isEqualTo(FailureReason.SYNTHESIZER);
            });
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void threePoolsTogetherStayWithinMaxAttempts() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            List<UUID> ids = List.of(fixture.insertConflict("jira.p1"), fixture.insertConflict("jira.p2"),
                    fixture.insertConflict("jira.p3"));
            List<CountingSynthesizer> calls = List.of(new CountingSynthesizer(new AlwaysFails()),
                    new CountingSynthesizer(new AlwaysFails()), new CountingSynthesizer(new AlwaysFails()));
            List<Replica> replicas = List.of(
                    fixture.replica(WorkerFixture.settings("r1").baseBackoff(BASE), calls.get(0)),
                    fixture.replica(WorkerFixture.settings("r2").baseBackoff(BASE), calls.get(1)),
                    fixture.replica(WorkerFixture.settings("r3").baseBackoff(BASE), calls.get(2)));
            replicas.forEach(replica -> replica.pool().start());

            Wait.until("all three marked", Duration.ofSeconds(30),
                    () -> fixture.count("synthesis_state = 'max_attempts_exceeded'") == ids.size());

            for (UUID id : ids) {
                int total = calls.stream().mapToInt(c -> c.callsFor(id)).sum();
                assertThat(total).as("synthesizer calls for %s over all replicas", id).isEqualTo(3);
                assertMarked(fixture, id, FailureReason.SYNTHESIZER);
            }
            double permanent = replicas.stream().mapToDouble(r -> r.attempts(Outcome.PERMANENT_FAILURE)).sum();
            double transients = replicas.stream().mapToDouble(r -> r.attempts(Outcome.TRANSIENT_FAILURE)).sum();
            assertThat(permanent).isEqualTo(3);
            assertThat(transients).isEqualTo(6);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aConflictThatKeptCrashingItsWorkersIsMarkedWithoutCallingTheSynthesizer() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.crashes");
            // Three earlier claims whose holders died without a word: the durable count is all that is left.
            fixture.admin.useHandle(handle -> handle.execute(
                    "UPDATE policy_conflicts SET attempts = 3 WHERE id = ?", id));
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            Replica replica = fixture.replica(WorkerFixture.settings("fresh-replica"), calls);
            replica.pool().start();

            Wait.until("the marker", Duration.ofSeconds(30),
                    () -> "max_attempts_exceeded".equals(fixture.column(id, "synthesis_state")));
            assertThat(calls.callsFor(id)).isZero();
            assertMarked(fixture, id, FailureReason.MAX_ATTEMPTS_EXCEEDED);
            assertThat(replica.failures(FailureReason.MAX_ATTEMPTS_EXCEEDED)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.PERMANENT_FAILURE)).isEqualTo(1);
        }
    }

    private static void assertMarked(WorkerFixture fixture, UUID id, FailureReason reason) {
        assertThat(fixture.column(id, "failure_marker")).isEqualTo("synthesis_max_attempts_exceeded");
        assertThat(fixture.column(id, "last_failure_reason")).isEqualTo(reason.label());
        assertThat(fixture.column(id, "lease_owner")).isNull();
        assertThat(fixture.column(id, "suggested_merge")).isNull();
        long events = fixture.admin.withHandle(handle -> handle.createQuery("""
                        SELECT count(*) FROM conflict_events
                        WHERE conflict_id = :id AND event_type = 'synthesis_failed_permanently'""")
                .bind("id", id).mapTo(Long.class).one());
        assertThat(events).isEqualTo(1);
        // No claim, by anyone, picks a marked conflict again.
        List<Lease> claimed = fixture.database.transactions().crossTenant(
                handle -> ConflictLeases.claim(handle, "late-claimer", 100, Duration.ofSeconds(10), Ticker.SYSTEM));
        assertThat(claimed).extracting(Lease::conflictId).doesNotContain(id);
    }
}
