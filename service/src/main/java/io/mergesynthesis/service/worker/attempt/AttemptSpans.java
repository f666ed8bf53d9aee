package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.worker.store.Lease;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The span of one attempt at a conflict (docs/adr/0048): from the claim's hand-over to the worker until the
 * attempt's end is decided, current on the worker's thread meanwhile, so that the provider calls made for it
 * (through {@link SynthesisCall}, which carries the context to its own thread) are its children. It names the
 * conflict by id and says how the attempt ended; nothing of the conflict's content.
 */
public final class AttemptSpans {

    static final String SCOPE = "io.mergesynthesis.service.worker";
    static final String NAME = "synthesis attempt";

    static final AttributeKey<String> CONFLICT_ID = AttributeKey.stringKey("merge_synthesis.conflict.id");
    static final AttributeKey<Long> NUMBER = AttributeKey.longKey("merge_synthesis.attempt.number");
    /** {@code stored}, {@code retry}, {@code give_up}, {@code hand_back}, {@code park} or {@code skipped}. */
    static final AttributeKey<String> END = AttributeKey.stringKey("merge_synthesis.attempt.end");
    /** The failure, deferral or parking reason, in the words of the attempt history. */
    static final AttributeKey<String> REASON = AttributeKey.stringKey("merge_synthesis.attempt.reason");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** Attempts that trace nothing. */
    public static final AttemptSpans OFF = new AttemptSpans(OpenTelemetry.noop());

    private final Tracer tracer;

    public AttemptSpans(OpenTelemetry telemetry) {
        this.tracer = telemetry.getTracer(SCOPE);
    }

    /** Runs {@code attempt} inside the span of an attempt at {@code lease}'s conflict and ends the span. */
    AttemptResult around(Lease lease, Supplier<AttemptResult> attempt) {
        Span span = tracer.spanBuilder(NAME).setAttribute(CONFLICT_ID, lease.conflictId().toString()).startSpan();
        try (Scope current = span.makeCurrent()) {
            AttemptResult result = attempt.get();
            if (span.isRecording()) {
                describe(span, result);
            }
            return result;
        } catch (RuntimeException | Error e) {
            span.setAttribute(ERROR_TYPE, e.getClass().getName());
            span.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            span.end();
        }
    }

    private static void describe(Span span, AttemptResult result) {
        span.setAttribute(NUMBER, (long) result.attempt());
        if (result instanceof AttemptResult.Stored) {
            span.setAttribute(END, "stored");
        } else if (result instanceof AttemptResult.Retry retry) {
            failed(span, "retry", retry.reason().label());
        } else if (result instanceof AttemptResult.GiveUp giveUp) {
            failed(span, "give_up", giveUp.reason().label());
        } else if (result instanceof AttemptResult.HandBack handBack) {
            span.setAttribute(END, "hand_back");
            span.setAttribute(REASON, handBack.reason() != null ? handBack.reason()
                    : handBack.why().name().toLowerCase(Locale.ROOT));
        } else if (result instanceof AttemptResult.Park park) {
            span.setAttribute(END, "park");
            span.setAttribute(REASON, park.reason());
        } else {
            span.setAttribute(END, "skipped");
        }
    }

    /** A counted failure: its reason is the span's error type, a short fixed word, never the failure's text. */
    private static void failed(Span span, String end, String reason) {
        span.setAttribute(END, end);
        span.setAttribute(REASON, reason);
        span.setAttribute(ERROR_TYPE, reason);
        span.setStatus(StatusCode.ERROR);
    }
}
