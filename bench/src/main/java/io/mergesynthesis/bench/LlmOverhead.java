package io.mergesynthesis.bench;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.Ticker;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the LLM synthesizer itself costs per call, outside the provider:
 * {@code java -cp bench/target/merge-synthesis-bench.jar io.mergesynthesis.bench.LlmOverhead [--threads 8]
 * [--calls 4000] [--latency 50ms] [--tracing off|on]}. Calls the synthesizer from {@code threads} threads, as that
 * many workers would, against the stand-in provider on loopback answering after a fixed {@code latency}; a call's
 * overhead is its wall time minus that latency: building the prompt, the HTTP exchange on loopback, reading and
 * checking the answer, building the merge. The stand-in's own handling is counted in it too, so the figure is an
 * upper bound. Prints percentiles of the overhead and the calls per second.
 *
 * <p>Each call runs inside a parent span, as the worker's attempt does. {@code --tracing off} (the default) is the
 * service without an exporter: OpenTelemetry's no-op API. {@code --tracing on} is the SDK with its batch processor,
 * as the service sets it up, exporting to nowhere so that no collector's speed is counted: the span work on the
 * worker's threads is what is measured, the export itself runs on the SDK's own thread.
 */
public final class LlmOverhead {

    private LlmOverhead() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> flags = new java.util.HashMap<>(Map.of("--threads", "8", "--calls", "4000",
                "--latency", "50", "--tracing", "off"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            flags.put(args[i], args[i + 1].replace("ms", ""));
        }
        int threads = Integer.parseInt(flags.get("--threads"));
        int calls = Integer.parseInt(flags.get("--calls"));
        Duration latency = Duration.ofMillis(Long.parseLong(flags.get("--latency")));
        boolean tracing = switch (flags.get("--tracing")) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--tracing is on or off, not " + flags.get("--tracing"));
        };
        AtomicLong exportedSpans = new AtomicLong();
        OpenTelemetry telemetry = tracing ? sdk(exportedSpans) : OpenTelemetry.noop();

        try (StandInProvider standIn = StandInProvider.start(new Behaviour().latency(latency).confidence(0.9))) {
            LlmSettings settings = new LlmSettings();
            ProviderSettings provider = new ProviderSettings(ProviderType.OPENAI, standIn.openAiBaseUrl(), "bench-key");
            provider.setMaxConcurrency(threads);
            settings.setProviders(Map.of("standin", provider));
            settings.setModels(Map.of("standin/bench", new ModelPrice(BigDecimal.ONE, BigDecimal.TEN)));
            settings.setPrimaryModel("standin/bench");
            LlmSynthesizer synthesizer = new LlmSynthesizer(settings, Clock.systemUTC(), Ticker.SYSTEM,
                    new CollectorRegistry(), telemetry);
            Tracer attempts = telemetry.getTracer("bench");
            ResolvedModel model = new ResolvedModel(Router.MERGE_SYNTHESIS, "standin", "bench");

            run(synthesizer, attempts, model, threads, Math.max(200, calls / 10), latency); // warm-up: JIT, connections
            long started = System.nanoTime();
            List<Long> overheads = run(synthesizer, attempts, model, threads, calls, latency);
            double seconds = (System.nanoTime() - started) / 1e9;
            Collections.sort(overheads);
            System.out.printf("llm synthesizer overhead per call at %d threads, stand-in latency %d ms, %d calls,"
                    + " tracing %s:%n", threads, latency.toMillis(), calls, tracing ? "on" : "off");
            System.out.printf("  p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, mean %.2f ms; %.0f calls/s (bound %.0f)%n",
                    millis(overheads, 0.50), millis(overheads, 0.90), millis(overheads, 0.99),
                    overheads.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6, calls / seconds,
                    threads * 1000.0 / latency.toMillis());
            if (telemetry instanceof OpenTelemetrySdk on) {
                on.close();
                System.out.printf("  %d spans exported%n", exportedSpans.get());
            }
        }
    }

    /** The SDK with the batch processor the service's autoconfiguration uses, and an exporter that only counts. */
    private static OpenTelemetrySdk sdk(AtomicLong exported) {
        SpanExporter counting = new SpanExporter() {
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
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(BatchSpanProcessor.builder(counting).build()).build())
                .build();
    }

    private static List<Long> run(LlmSynthesizer synthesizer, Tracer attempts, ResolvedModel model, int threads,
                                  int calls, Duration latency) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger left = new AtomicInteger(calls);
        List<Future<List<Long>>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit(() -> {
                List<Long> mine = new ArrayList<>();
                while (left.getAndDecrement() > 0) {
                    long start = System.nanoTime();
                    ConflictSnapshot conflict = conflict();
                    Span attempt = attempts.spanBuilder("synthesis attempt")
                            .setAttribute("merge_synthesis.conflict.id", conflict.conflictId().toString()).startSpan();
                    try (io.opentelemetry.context.Scope current = attempt.makeCurrent()) {
                        synthesizer.synthesizeWithCalls(conflict, model);
                    } finally {
                        attempt.end();
                    }
                    mine.add(System.nanoTime() - start - latency.toNanos());
                }
                return mine;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> worker : workers) {
            all.addAll(worker.get());
        }
        pool.shutdown();
        return all;
    }

    private static ConflictSnapshot conflict() {
        return new ConflictSnapshot(UUID.randomUUID(), UUID.randomUUID(), "bench", Action.TOOL_CALL,
                "jira.create_issue", List.of(
                        new PolicyRule("pol-org-1", Scope.ORG, "org-1", Effect.DENY, "jira.*"),
                        new PolicyRule("pol-mbr-2", Scope.MEMBER, "mbr-2", Effect.ALLOW, "jira.create_issue")),
                "pol-org-1", Instant.parse("2026-11-20T10:15:00Z"));
    }

    private static double millis(List<Long> sorted, double quantile) {
        return sorted.get(Math.min(sorted.size() - 1, (int) (quantile * sorted.size()))) / 1e6;
    }
}
