package io.mergesynthesis.service.worker;

import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls the synthesizer with a deadline. The call runs on a thread of its own, so a synthesizer that hangs
 * (even one that ignores interrupts) costs that thread, never the worker: at the invoke timeout the worker
 * interrupts the call and moves on.
 */
final class SynthesisCall {

    private final MergeSynthesizer synthesizer;
    private final Duration invokeTimeout;
    private final ExecutorService calls;

    SynthesisCall(MergeSynthesizer synthesizer, Duration invokeTimeout, String threadPrefix) {
        this.synthesizer = synthesizer;
        this.invokeTimeout = invokeTimeout;
        AtomicInteger count = new AtomicInteger();
        this.calls = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, threadPrefix + "-call-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    String synthesizerName() {
        return synthesizer.name();
    }

    SuggestedMerge invoke(ConflictSnapshot conflict, ResolvedModel model) throws AttemptFailure {
        Future<SuggestedMerge> call = calls.submit(() -> synthesizer.synthesize(conflict, model));
        try {
            return call.get(invokeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new AttemptFailure(FailureReason.SYNTHESIZER,
                    "the synthesizer did not answer within the invoke timeout of " + invokeTimeout, e);
        } catch (ExecutionException e) {
            throw new AttemptFailure(FailureReason.SYNTHESIZER, "the synthesizer failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new AttemptFailure(FailureReason.SYNTHESIZER, "interrupted while the synthesizer ran", e);
        }
    }

    void shutdown() {
        calls.shutdownNow();
    }
}
