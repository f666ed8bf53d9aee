package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import io.mergesynthesis.service.testing.Marked;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A re-queued conflict on the real pool: the workers pick it up at once (woken, not polled), and it gets the full
 * number of attempts again, whatever a replica remembers of its attempts from before the re-queue.
 */
class RequeuedConflictTest {

    private static final Duration NEVER_POLLS = Duration.ofMinutes(10);

    /** Fails while {@code failing} is set, then answers as the stub does. */
    static final class FailsUntilFixed implements MergeSynthesizer {
        final AtomicBoolean failing = new AtomicBoolean(true);
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "fails-until-fixed";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            if (failing.get()) {
                throw new SynthesisException("the provider cannot do this one yet");
            }
            return stub.synthesize(conflict, model);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMarkedConflictRequeuedIsWokenForAndSynthesizedWithItsHistoryKept() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            FailsUntilFixed synthesizer = new FailsUntilFixed();
            CountingSynthesizer calls = new CountingSynthesizer(synthesizer);
            Replica replica = fixture.replica(WorkerFixture.settings("only").listen(true).pollInterval(NEVER_POLLS),
                    calls);
            replica.pool().start();
            Wait.until("listening", Duration.ofSeconds(10),
                    () -> replica.pool().listenConnectionsMade() == 1);
            UUID id = fixture.insertConflict("jira.later");
            // Inserted without a notification: the pool finds it when its first backoff ends, or on a wake-up.
            fixture.admin.useHandle(handle -> handle.execute("SELECT pg_notify('policy_conflicts_pending', '')"));
            Wait.until("the marker", Duration.ofSeconds(30),
                    () -> "max_attempts_exceeded".equals(fixture.column(id, "synthesis_state")));
            assertThat(calls.callsFor(id)).isEqualTo(3);

            synthesizer.failing.set(false);
            ConflictRequeue.Single requeued = new ConflictRequeue(fixture.database.transactions())
                    .one(Requester.commandLine(), null, id);
            assertThat(requeued.kind()).isEqualTo(ConflictRequeue.Kind.REQUEUED);

            // The pool never polls: only the re-queue's notification can get this done in time.
            Wait.until("the merge", Duration.ofSeconds(15),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            assertThat(calls.callsFor(id)).isEqualTo(4);
            assertThat(fixture.column(id, "attempts")).isEqualTo("1");
            assertThat(fixture.column(id, "failure_marker")).isNull();
            assertThat(fixture.column(id, "last_failure_reason")).isNull();
            assertThat(Marked.historyLines(fixture.admin, id)).as("three failures and the re-queue").isEqualTo(3 + 1);
            assertThat(Marked.onlyRequeueEvent(fixture.admin, id).get("requested_by").asText()).isEqualTo("cli");
            assertThat(eventTypes(fixture, id)).containsExactly("synthesis_failed_permanently", "synthesis_requeued",
                    "merge_synthesized");
        }
    }

    /**
     * This replica fails attempts 1 and 2 and remembers them; another replica makes attempt 3 and marks the
     * conflict. After a re-queue, this replica must still give it three attempts, not one.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void whatAReplicaRememberedFromBeforeTheRequeueDoesNotMarkItEarly() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            CountingSynthesizer calls = new CountingSynthesizer(new PoisonRowTest.AlwaysFails());
            // The second retry waits 2 s: time for the other replica's attempt 3, played below in SQL.
            Replica replica = fixture.replica(WorkerFixture.settings("remembers")
                    .baseBackoff(Duration.ofSeconds(1)).listen(true), calls);
            UUID id = fixture.insertConflict("jira.flaky");
            replica.pool().start();
            Wait.until("two failed attempts", Duration.ofSeconds(30),
                    () -> Marked.historyLines(fixture.admin, id) == 2);
            assertThat(calls.callsFor(id)).isEqualTo(2);

            // Another replica's claim and failed third attempt, as they leave the row: marked, three claims.
            int marked = fixture.admin.withHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                               SET synthesis_state = 'max_attempts_exceeded', attempts = 3,
                                   failure_marker = 'synthesis_max_attempts_exceeded',
                                   last_failure_reason = 'synthesizer', updated_at = now()
                             WHERE id = :id AND synthesis_state = 'pending' AND attempts = 2""")
                    .bind("id", id).execute());
            assertThat(marked).as("marked before this replica's third claim").isEqualTo(1);

            long requeued = new ConflictRequeue(fixture.database.transactions()).matching(Requester.commandLine(),
                    new io.mergesynthesis.service.requeue.RequeueFilter(null, "synthesizer"));
            assertThat(requeued).isEqualTo(1);

            Wait.until("marked again", Duration.ofSeconds(45),
                    () -> "max_attempts_exceeded".equals(fixture.column(id, "synthesis_state")));
            // Three calls after the re-queue: with the old memory counted, it would have been one.
            assertThat(calls.callsFor(id)).isEqualTo(2 + 3);
            assertThat(fixture.column(id, "attempts")).isEqualTo("3");
            assertThat(fixture.column(id, "last_failure_reason")).isEqualTo("synthesizer");
            assertThat(Marked.historyLines(fixture.admin, id)).as("failures, the re-queue, failures").isEqualTo(2 + 1 + 3);
            assertThat(replica.failures(FailureReason.MAX_ATTEMPTS_EXCEEDED)).isZero();
        }
    }

    private static java.util.List<String> eventTypes(WorkerFixture fixture, UUID id) {
        return fixture.admin.withHandle(handle -> handle.createQuery(
                        "SELECT event_type FROM conflict_events WHERE conflict_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }
}
