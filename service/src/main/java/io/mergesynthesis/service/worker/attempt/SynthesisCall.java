package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
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
 * interrupts the call and moves on. What the synthesizer throws becomes the attempt's failure reason here, with
 * the provider calls it paid for carried along; a deferral becomes an {@link AttemptDeferred}.
 */
public final class SynthesisCall {

    private final MergeSynthesizer synthesizer;
    private final Duration invokeTimeout;
    private final ExecutorService calls;

    public SynthesisCall(MergeSynthesizer synthesizer, Duration invokeTimeout, String threadPrefix) {
        this.synthesizer = synthesizer;
        this.invokeTimeout = invokeTimeout;
        AtomicInteger count = new AtomicInteger();
        this.calls = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, threadPrefix + "-call-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    public String synthesizerName() {
        return synthesizer.name();
    }

    Duration invokeTimeout() {
        return invokeTimeout;
    }

    /** What stops the synthesizer from working at all, for the health check. */
    Optional<String> problem() {
        return synthesizer.problem();
    }

    /** @param early where the synthesizer puts a call on record before it makes another for the same attempt */
    Synthesis invoke(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws AttemptFailure, AttemptDeferred {
        // The attempt's span goes along, so that the provider calls' spans are its children.
        CountDownLatch begun = new CountDownLatch(1);
        Future<Synthesis> call = calls.submit(Context.current().wrap(() -> {
            begun.countDown();
            return synthesizer.synthesizeWithCalls(conflict, model, early);
        }));
        try {
            // The timeout is the synthesizer's time, counted from when the call begins on its thread: on a busy
            // machine a new thread can take a while to start, and that wait would otherwise cut a call short of
            // the time it was given. A call whose thread does not start within the timeout is cut all the same.
            if (!begun.await(invokeTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("the call's thread did not start");
            }
            Synthesis synthesis = call.get(invokeTimeout.toNanos(), TimeUnit.NANOSECONDS);
            if (synthesis == null) {
                throw new AttemptFailure(FailureReason.INVALID_JSON, "the synthesizer returned no merge");
            }
            return synthesis;
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new AttemptFailure(FailureReason.SYNTHESIZER,
                    "the synthesizer did not answer within the invoke timeout of " + invokeTimeout, e);
        } catch (ExecutionException e) {
            throw failureOf(e.getCause());
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new AttemptFailure(FailureReason.SYNTHESIZER, "interrupted while the synthesizer ran", e);
        }
    }

    /**
     * The failure {@code thrown} stands for. Its message goes to the operator's log; the history gets
     * {@link SynthesisFailureText}'s fixed words for it, so a provider's own text never reaches a tenant.
     */
    private static AttemptFailure failureOf(Throwable thrown) throws AttemptDeferred {
        if (thrown instanceof SynthesisDeferred deferred) {
            throw new AttemptDeferred(deferred.deferral().name().toLowerCase(Locale.ROOT), deferred.retryAfter(),
                    holdsClaims(deferred.deferral()), deferred.provider(), deferred.getMessage(),
                    SynthesisFailureText.of(deferred),
                    PaidCalls.entries(deferred.calls()));
        }
        List<ProviderCall> paid =
                thrown instanceof SynthesisException failed ? failed.calls() : List.of();
        FailureReason reason = thrown instanceof InvalidAnswerException ? FailureReason.INVALID_JSON
                : FailureReason.SYNTHESIZER;
        return new AttemptFailure(reason, "the synthesizer failed: " + thrown, SynthesisFailureText.of(thrown),
                thrown, PaidCalls.entries(paid));
    }

    /**
     * Whether a deferral of this cause holds back the claims of the provider's routes for its wait: when the
     * provider asked to wait, and also when it has no slot or turn for a call before then, as its stated limits
     * pace it. A conflict claimed meanwhile would only be handed back.
     */
    private static boolean holdsClaims(SynthesisDeferred.Cause cause) {
        return cause.pausesProvider() || cause == SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT;
    }

    public void shutdown() {
        calls.shutdownNow();
    }
}
