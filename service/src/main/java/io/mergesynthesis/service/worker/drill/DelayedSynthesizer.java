package io.mergesynthesis.service.worker.drill;

import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.time.Duration;

/**
 * For drills and benchmarks: makes every call take at least {@code latency}, the way a remote model would,
 * so that the pool's behaviour with slow calls (throughput, connections held) can be observed with the stub.
 */
final class DelayedSynthesizer extends ForwardingSynthesizer {

    private final Duration latency;

    DelayedSynthesizer(MergeSynthesizer inner, Duration latency) {
        super(inner);
        this.latency = latency;
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        Thread.sleep(latency.toMillis());
        return inner.synthesizeWithCalls(conflict, model, early);
    }
}
