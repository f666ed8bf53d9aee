package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.MergeFinding;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The provider metrics of the contract, registered in the registry the service passes in. */
final class LlmMetrics {

    private final Counter calls;
    private final Counter tokens;
    private final Counter cost;
    private final Counter escalations;
    private final Counter escalationWaits;
    private final Counter probes;
    private final Histogram duration;
    private final MergeCheckRefusals refusals;

    LlmMetrics(CollectorRegistry registry, Map<String, ProviderGate> gates) {
        calls = Counter.build("llm_calls_total", "Provider calls by outcome.")
                .labelNames("provider", "outcome").register(registry);
        tokens = Counter.build("llm_tokens_total", "Tokens the providers counted; input includes cache reads and "
                        + "writes, which cache_read and cache_write count again on their own.")
                .labelNames("provider", "kind").register(registry);
        cost = Counter.build("llm_cost_usd_total", "What the calls cost by the configured prices, in USD.")
                .labelNames("provider").register(registry);
        escalations = Counter.build("llm_escalations_total",
                "Times a primary answer was not confident enough and the escalation model was asked.").register(registry);
        escalationWaits = Counter.build("llm_escalation_waits_total",
                "Second passes (an escalation or a repair) that waited for their model's pause or pace to end "
                        + "instead of giving up.").register(registry);
        probes = Counter.build("llm_circuit_probes_total",
                        "Free requests (the model list) sent to a provider found down, by whether it answered.")
                .labelNames("provider", "outcome").register(registry);
        duration = Histogram.build("llm_call_duration_seconds", "From sending a request to reading its whole answer.")
                .labelNames("provider")
                .buckets(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60)
                .register(registry);
        new GateReadings(gates).register(registry);
        refusals = MergeCheckRefusals.in(registry);
        // Every configured provider shows up with zeroes from the start, so a dashboard's rate() has a baseline.
        for (String provider : gates.keySet()) {
            for (CallOutcome outcome : CallOutcome.values()) {
                calls.labels(provider, outcome.label());
            }
            tokens.labels(provider, "input");
            tokens.labels(provider, "output");
            tokens.labels(provider, "cache_read");
            tokens.labels(provider, "cache_write");
            cost.labels(provider);
            probes.labels(provider, "answered");
            probes.labels(provider, "failed");
        }
    }

    /** A probe of a provider found down: answered (it is up again) or failed as an outage fails. */
    void probe(String provider, boolean answered) {
        probes.labels(provider, answered ? "answered" : "failed").inc();
    }

    void call(String provider, CallOutcome outcome, Duration latency) {
        calls.labels(provider, outcome.label()).inc();
        duration.labels(provider).observe(latency.toNanos() / 1e9);
    }

    void usage(String provider, Usage usage, BigDecimal costUsd) {
        tokens.labels(provider, "input").inc(usage.allInputTokens());
        tokens.labels(provider, "output").inc(usage.outputTokens());
        tokens.labels(provider, "cache_read").inc(usage.cacheReadTokens());
        tokens.labels(provider, "cache_write").inc(usage.cacheWriteTokens());
        cost.labels(provider).inc(costUsd.doubleValue());
    }

    void escalation() {
        escalations.inc();
    }

    void escalationWaited() {
        escalationWaits.inc();
    }

    /** A model's answer the merge check refused, whether or not a second pass then repaired it. */
    void refused(List<MergeFinding> findings) {
        refusals.refused(findings);
    }

    /**
     * What the gates hold, read at scrape time so that a gauge can never disagree with what they enforce, one
     * series per configured provider: {@code llm_concurrency_limit}, {@code llm_pace_requests_per_second} (all of
     * the provider's models together), {@code llm_circuit_state} (0 closed, 1 open, 2 probing) and
     * {@code llm_circuit_openings_total}; and {@code llm_pace_tokens_per_second} for each token limit the provider
     * states, its models together.
     */
    private static final class GateReadings extends Collector {

        private final Map<String, ProviderGate> gates;

        GateReadings(Map<String, ProviderGate> gates) {
            this.gates = gates;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            GaugeMetricFamily limit = new GaugeMetricFamily("llm_concurrency_limit",
                    "Calls this replica currently allows itself in flight per provider (AIMD).", List.of("provider"));
            GaugeMetricFamily pace = new GaugeMetricFamily("llm_pace_requests_per_second",
                    "Requests per second this replica currently allows itself per provider, from the limit the "
                            + "provider states; 0 when not pacing or waiting for a reset.", List.of("provider"));
            GaugeMetricFamily state = new GaugeMetricFamily("llm_circuit_state",
                    "Each provider's circuit: 0 closed (called as usual), 1 open (down, calls held back), 2 probing.",
                    List.of("provider"));
            GaugeMetricFamily tokens = new GaugeMetricFamily("llm_pace_tokens_per_second",
                    "Tokens per second this replica currently allows itself per provider (its models together) and "
                            + "token limit the provider states; 0 while waiting for a reset.",
                    List.of("provider", "kind"));
            CounterMetricFamily openings = new CounterMetricFamily("llm_circuit_openings_total",
                    "Times a provider was found down and its circuit opened.", List.of("provider"));
            gates.forEach((name, gate) -> {
                List<String> provider = List.of(name);
                limit.addMetric(provider, gate.limit().limit());
                pace.addMetric(provider, gate.requestsPerSecond());
                for (RateLimitHeaders.Kind kind : RateLimitHeaders.Kind.values()) {
                    if (kind != RateLimitHeaders.Kind.REQUESTS && gate.paced(kind)) {
                        tokens.addMetric(List.of(name, kind.label()), gate.perSecond(kind));
                    }
                }
                state.addMetric(provider, gate.circuit().state().ordinal());
                openings.addMetric(provider, gate.circuit().openings());
            });
            return List.of(limit, pace, tokens, state, openings);
        }
    }
}
