package io.mergesynthesis.service.worker.drill;

import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * For failure drills: wraps a synthesizer and makes some calls fail or hang. A hanging call blocks until it
 * is interrupted, which is what the invoke timeout does to it.
 */
final class FaultInjectingSynthesizer extends ForwardingSynthesizer {

    private final double failureRate;
    private final double hangRate;
    private final Optional<Pattern> alwaysFailTargets;
    private final DoubleSupplier random;

    FaultInjectingSynthesizer(MergeSynthesizer inner, double failureRate, double hangRate,
                              Optional<Pattern> alwaysFailTargets, DoubleSupplier random) {
        super(inner);
        this.failureRate = failureRate;
        this.hangRate = hangRate;
        this.alwaysFailTargets = alwaysFailTargets;
        this.random = random;
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        if (alwaysFailTargets.isPresent() && alwaysFailTargets.get().matcher(conflict.target()).find()) {
            throw new SynthesisException("injected fault: target " + conflict.target()
                    + " matches synthesis.faults.alwaysFailTargets");
        }
        double roll = random.getAsDouble();
        if (roll < failureRate) {
            throw new SynthesisException("injected fault: random failure");
        }
        if (roll < failureRate + hangRate) {
            new CountDownLatch(1).await(); // never counted down: only an interrupt ends the wait
        }
        return inner.synthesizeWithCalls(conflict, model, early);
    }
}
