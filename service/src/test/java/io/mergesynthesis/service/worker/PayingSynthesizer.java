package io.mergesynthesis.service.worker;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A synthesizer that reports provider calls the way a paying one does: the stub writes the merge, and each
 * conflict is answered by whatever the test scripts for it (calls with their figures, or a failure carrying them).
 * Counts how often it was asked, to show that a conflict was not.
 */
public final class PayingSynthesizer implements MergeSynthesizer {

    /** What one call to {@link #synthesizeWithCalls} does. */
    public interface Script {
        Synthesis answer(SuggestedMerge merge) throws SynthesisException;
    }

    private final MergeSynthesizer stub = WorkerFixture.stub();
    private volatile Script script;
    final AtomicInteger asked = new AtomicInteger();

    public PayingSynthesizer(Script script) {
        this.script = script;
    }

    void script(Script next) {
        this.script = next;
    }

    /** A call of {@code model} with these figures, whose answer became (or did not become) the merge. */
    public static ProviderCall call(Pass pass, String model, long in, long out, String cost, Disposition disposition) {
        return new ProviderCall(java.util.UUID.randomUUID(), pass, "anthropic", model, in, out, 5, 7, new BigDecimal(cost), Duration.ofMillis(42),
                disposition, "req-" + model + "-" + pass.label(), Instant.now());
    }

    @Override
    public String name() {
        return "paying";
    }

    @Override
    public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model).merge();
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        asked.incrementAndGet();
        return script.answer(stub.synthesize(conflict, model));
    }

    public static Synthesis paid(SuggestedMerge merge, ProviderCall... calls) {
        return new Synthesis(merge, List.of(calls));
    }
}
