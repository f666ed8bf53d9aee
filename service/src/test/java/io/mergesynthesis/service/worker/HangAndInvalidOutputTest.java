package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the pool does with a synthesizer that never answers, and with one that answers nonsense. */
class HangAndInvalidOutputTest {

    /** Never returns for targets starting with "hang."; counts the calls it was interrupted out of. */
    static final class HangsOnSome implements MergeSynthesizer {
        final AtomicInteger interrupted = new AtomicInteger();
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "hangs-on-some";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            if (conflict.target().startsWith("hang.")) {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
            }
            return stub.synthesize(conflict, model);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHungCallIsCutAtTheInvokeTimeoutAndFreesItsWorker() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID hung = fixture.insertConflict("hang.forever");
            UUID next = fixture.insertConflict("jira.create_issue");
            HangsOnSome synthesizer = new HangsOnSome();
            // One worker: the second conflict can only be done if the hung call let the worker go.
            Replica replica = fixture.replica(WorkerFixture.settings("hang").workers(1)
                    .invokeTimeout(Duration.ofMillis(300)).leaseDuration(Duration.ofSeconds(2))
                    .baseBackoff(Duration.ofMinutes(1)), synthesizer);
            replica.pool().start();

            Wait.until("the later conflict done", Duration.ofSeconds(20),
                    () -> "done".equals(fixture.column(next, "synthesis_state")));
            Wait.until("the hung call interrupted", Duration.ofSeconds(20),
                    () -> synthesizer.interrupted.get() == 1);
            assertThat(fixture.column(hung, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(hung, "last_failure_reason")).isEqualTo("synthesizer");
            assertThat(fixture.column(hung, "suggested_merge")).isNull();
            assertThat(replica.failures(FailureReason.SYNTHESIZER)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.SUCCESS)).isEqualTo(1);
        }
    }

    /** Answers with a merge the schema refuses: a confidence above 1. */
    static final class OverConfident implements MergeSynthesizer {
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "over-confident";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            SuggestedMerge m = stub.synthesize(conflict, model);
            return new SuggestedMerge(m.schemaVersion(), m.conflictId(), m.winner(), m.losers(), m.resolvedEffect(),
                    m.mergedRule(), m.loserActions(), m.rationale(), 7.5, m.producedBy(), m.generatedAt());
        }
    }

    /** Answers with a valid merge for some other conflict. */
    static final class WrongConflict implements MergeSynthesizer {
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "wrong-conflict";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            SuggestedMerge m = stub.synthesize(conflict, model);
            return new SuggestedMerge(m.schemaVersion(), UUID.randomUUID(), m.winner(), m.losers(),
                    m.resolvedEffect(), m.mergedRule(), m.loserActions(), m.rationale(), m.confidence(),
                    m.producedBy(), m.generatedAt());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void outputThatBreaksTheSchemaIsRefusedAndNothingIsStored() throws Exception {
        assertRefused(new OverConfident());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMergeForAnotherConflictIsRefused() throws Exception {
        assertRefused(new WrongConflict());
    }

    private static void assertRefused(MergeSynthesizer synthesizer) throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            Replica replica = fixture.replica(WorkerFixture.settings("invalid").baseBackoff(Duration.ofMinutes(1)),
                    synthesizer);
            replica.pool().start();

            Wait.until("the failed attempt recorded", Duration.ofSeconds(20),
                    () -> fixture.column(id, "last_failure_reason") != null);
            assertThat(fixture.column(id, "last_failure_reason")).isEqualTo("invalid_json");
            assertThat(fixture.column(id, "synthesis_state")).isEqualTo("pending");
            assertThat(fixture.column(id, "suggested_merge")).isNull();
            assertThat(fixture.events("merge_synthesized")).isZero();
            assertThat(replica.failures(FailureReason.INVALID_JSON)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(1);
        }
    }
}
