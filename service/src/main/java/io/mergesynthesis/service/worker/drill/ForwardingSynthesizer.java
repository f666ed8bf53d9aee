package io.mergesynthesis.service.worker.drill;

import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.ProviderState;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.util.List;
import java.util.Optional;

/**
 * The base of the drill wrappers (faults, latency, the call journal): everything goes to the wrapped synthesizer,
 * and a wrapper overrides the three-argument {@code synthesizeWithCalls} alone. Forwarding that one method, rather
 * than {@code synthesize}, keeps the provider calls of a paying synthesizer (and its early records) reaching the
 * worker through any wrapper.
 */
abstract class ForwardingSynthesizer implements MergeSynthesizer {

    protected final MergeSynthesizer inner;

    protected ForwardingSynthesizer(MergeSynthesizer inner) {
        this.inner = inner;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public final SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model, CallRecorder.NONE).merge();
    }

    @Override
    public final Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model, CallRecorder.NONE);
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        return inner.synthesizeWithCalls(conflict, model, early);
    }

    @Override
    public Optional<String> problem() {
        return inner.problem();
    }

    @Override
    public List<CircuitStatus> circuits() {
        return inner.circuits();
    }

    @Override
    public List<ProviderState> providerStates() {
        return inner.providerStates();
    }
}
