package io.mergesynthesis.llm;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.net.http.HttpTimeoutException;

/**
 * The client span of one call in flight: ended once, by what the provider answered or by why no answer came.
 * The span records the provider's counts and ids only, never its error message, which can quote a key.
 */
final class ProviderCallSpan {

    static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
    static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    /** Every input token, cached or not, as the conventions define it: the cache counts below are part of it. */
    static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    static final AttributeKey<Long> CACHE_READ_TOKENS = AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
    static final AttributeKey<Long> CACHE_WRITE_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** The error type of a call that got no answer in time. */
    static final String TIMEOUT = "timeout";

    private final Span span;

    ProviderCallSpan(Span span) {
        this.span = span;
    }

    /**
     * Ends the span with the provider's answer, whatever its status: an HTTP error status is the span's
     * {@code error.type}. An answer that later fails the merge check is still a call that succeeded.
     */
    void answered(ProviderReply reply) {
        if (span.isRecording()) {
            if (reply.requestId() != null) {
                span.setAttribute(RESPONSE_ID, reply.requestId());
            }
            if (reply.model() != null) {
                span.setAttribute(RESPONSE_MODEL, reply.model());
            }
            Usage usage = reply.usage();
            if (!usage.equals(Usage.NONE)) {
                span.setAttribute(INPUT_TOKENS, usage.allInputTokens());
                span.setAttribute(OUTPUT_TOKENS, usage.outputTokens());
                span.setAttribute(CACHE_READ_TOKENS, usage.cacheReadTokens());
                span.setAttribute(CACHE_WRITE_TOKENS, usage.cacheWriteTokens());
            }
            if (!reply.isSuccess()) {
                span.setAttribute(ERROR_TYPE, Integer.toString(reply.status()));
                span.setStatus(StatusCode.ERROR);
            }
        }
        span.end();
    }

    /**
     * Ends the span of a call that got no answer: {@code error.type} is {@value #TIMEOUT} for a request that ran
     * out of time, else the class of what stopped it ({@code java.net.ConnectException}, say). The exception
     * itself is not recorded: its message may name the provider's URL.
     */
    void failed(Throwable cause) {
        if (span.isRecording()) {
            span.setAttribute(ERROR_TYPE, cause instanceof HttpTimeoutException ? TIMEOUT : cause.getClass().getName());
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }
}
