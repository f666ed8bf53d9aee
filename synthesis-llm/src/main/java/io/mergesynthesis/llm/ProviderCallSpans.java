package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.ProviderCall;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.net.URI;
import java.util.Locale;

/**
 * Opens the client span of each call to one provider, named and described as OpenTelemetry's conventions for
 * generative AI spans say ({@code chat {model}}, {@code gen_ai.*}). The parent is whatever span is current on the
 * calling thread: the worker's attempt. With the no-op API (tracing off) a call's span is a few short-lived
 * objects and nothing else: no attribute is read or kept, nothing is exported.
 *
 * <p>What a span carries is listed in docs/adr/0048: names, counts and ids, never the prompt, the conflict, the
 * answer or a key. The conventions' opt-in content attributes ({@code gen_ai.input.messages} and the like) are
 * never set.
 */
final class ProviderCallSpans {

    /** The instrumentation scope of these spans. */
    static final String SCOPE = "io.mergesynthesis.llm";

    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
    static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    static final AttributeKey<Long> REQUEST_MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
    static final AttributeKey<String> OUTPUT_TYPE = AttributeKey.stringKey("gen_ai.output.type");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    /** Which pass of the attempt made the call: {@code primary} or {@code escalation}. */
    static final AttributeKey<String> PASS = AttributeKey.stringKey("merge_synthesis.call.pass");

    /** Both protocols are asked through their chat APIs. */
    static final String CHAT = "chat";

    private final Tracer tracer;
    private final String provider;
    private final String host;
    private final long port;

    /**
     * @param baseUrl the provider's base URL: its host and port go on every span as {@code server.*}
     */
    ProviderCallSpans(OpenTelemetry telemetry, ProviderType type, String baseUrl) {
        this.tracer = telemetry.getTracer(SCOPE);
        // The conventions' names for the two protocols are their types' wire names; an OpenAI-compatible server
        // is "openai" too, told apart by server.address.
        this.provider = type.wireName();
        URI uri = parse(baseUrl);
        this.host = uri == null ? null : uri.getHost();
        this.port = uri == null ? -1 : uri.getPort() != -1 ? uri.getPort()
                : "https".equals(uri.getScheme()) ? 443 : 80;
    }

    /** A span for tests and tools that trace nothing. */
    static ProviderCallSpans off(ProviderType type) {
        return new ProviderCallSpans(OpenTelemetry.noop(), type, "");
    }

    /** Starts the span of a call about to be sent; the caller ends it through the returned handle. */
    ProviderCallSpan start(ProviderCall.Pass pass, String model, int maxTokens) {
        Span span = tracer.spanBuilder(CHAT + " " + model)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(OPERATION, CHAT)
                .setAttribute(PROVIDER, provider)
                .setAttribute(REQUEST_MODEL, model)
                .setAttribute(REQUEST_MAX_TOKENS, (long) maxTokens)
                // The answer is always asked for as JSON (a tool call, a schema, or JSON in text).
                .setAttribute(OUTPUT_TYPE, "json")
                .setAttribute(PASS, pass.name().toLowerCase(Locale.ROOT))
                .startSpan();
        if (host != null && span.isRecording()) {
            span.setAttribute(SERVER_ADDRESS, host);
            span.setAttribute(SERVER_PORT, port);
        }
        return new ProviderCallSpan(span);
    }

    private static URI parse(String baseUrl) {
        try {
            URI uri = URI.create(baseUrl);
            return uri.getHost() == null ? null : uri;
        } catch (IllegalArgumentException e) {
            // The settings check refuses such a URL before any call; a span simply goes without server.*.
            return null;
        }
    }
}
