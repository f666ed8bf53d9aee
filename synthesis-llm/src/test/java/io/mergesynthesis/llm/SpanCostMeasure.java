package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.ProviderCall;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.http.HttpHeaders;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What tracing costs a worker's thread per attempt, without the provider. A measurement, not a test: it asserts
 * nothing and is not part of {@code mvn verify} (its name does not end in Test). Run it with {@code mvn -B test -pl
 * synthesis-llm -am -Dtest=SpanCostMeasure -Dsurefire.failIfNoSpecifiedTests=false}, and {@code
 * -DspanCost.attempts=1000000 -DspanCost.rounds=5} to change how much it times. One attempt here is what the worker and the synthesizer do for tracing around one provider call: the attempt's span,
 * made current, and the call's client span from {@link ProviderCallSpans}, started and ended with an answer
 * (docs/adr/0048). Measured in the thread's CPU time, best of {@code rounds}, two ways: tracing off (the
 * no-op API the service uses without an exporter) and tracing on (the SDK, each span handed to an exporter that
 * only counts, synchronously: an upper bound of what the batch processor, which only queues the span on this
 * thread, costs).
 *
 * <p>Among the synthesizer's tests, in its package, so that it times the span classes themselves, which are not
 * public.
 */
class SpanCostMeasure {

    private static final ProviderReply REPLY = new ProviderReply(200, HttpHeaders.of(Map.of(), (a, b) -> true),
            new Usage(1000, 200, 4000, 0), "req_bench", "{}", null, ProviderReply.ProviderError.NONE, false,
            "bench-model-2026");

    @Test
    void measure() {
        int attempts = Integer.getInteger("spanCost.attempts", 1_000_000);
        int rounds = Integer.getInteger("spanCost.rounds", 5);
        AtomicLong exported = new AtomicLong();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(counting(exported))).build())
                .build();
        String[] modes = {"off", "on"};
        long[] best = {Long.MAX_VALUE, Long.MAX_VALUE};
        for (int round = 0; round <= rounds; round++) {
            for (int m = 0; m < modes.length; m++) {
                long nanos = time(m == 1 ? sdk : OpenTelemetry.noop(), attempts);
                // Round 0 warms the JIT and is not counted.
                if (round > 0) {
                    best[m] = Math.min(best[m], nanos);
                }
            }
        }
        sdk.close();
        System.out.printf("tracing cost per attempt (attempt span + one provider call span), thread CPU time, best"
                + " of %d rounds of %,d attempts:%n", rounds, attempts);
        for (int m = 0; m < modes.length; m++) {
            System.out.printf("  %-3s %8.1f ns%n", modes[m], (double) best[m] / attempts);
        }
        System.out.printf("  (%,d spans exported while on)%n", exported.get());
    }

    /** Thread CPU nanoseconds for {@code attempts} attempts. */
    private static long time(OpenTelemetry telemetry, int attempts) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Tracer tracer = telemetry.getTracer("bench");
        ProviderCallSpans calls = new ProviderCallSpans(telemetry, ProviderType.ANTHROPIC, "https://api.example.com");
        String conflictId = UUID.randomUUID().toString();
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < attempts; i++) {
            Span attempt = tracer.spanBuilder("synthesis attempt")
                    .setAttribute("merge_synthesis.conflict.id", conflictId).startSpan();
            try (Scope current = attempt.makeCurrent()) {
                ProviderCallSpan call = calls.start(ProviderCall.Pass.PRIMARY, "bench-model", 1024);
                call.answered(REPLY);
            } finally {
                attempt.end();
            }
        }
        return threads.getCurrentThreadCpuTime() - start;
    }

    private static SpanExporter counting(AtomicLong exported) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                exported.addAndGet(spans.size());
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
    }
}
