package io.mergesynthesis.llm;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
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
    private final Histogram duration;

    LlmMetrics(CollectorRegistry registry, Map<String, ProviderGate> gates) {
        calls = Counter.build("llm_calls_total", "Provider calls by outcome.")
                .labelNames("provider", "outcome").register(registry);
        tokens = Counter.build("llm_tokens_total", "Tokens the providers counted; cache reads and writes are input.")
                .labelNames("provider", "kind").register(registry);
        cost = Counter.build("llm_cost_usd_total", "What the calls cost by the configured prices, in USD.")
                .labelNames("provider").register(registry);
        escalations = Counter.build("llm_escalations_total",
                "Times a primary answer was not confident enough and the escalation model was asked.").register(registry);
        duration = Histogram.build("llm_call_duration_seconds", "From sending a request to reading its whole answer.")
                .labelNames("provider")
                .buckets(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60)
                .register(registry);
        new ConcurrencyLimits(gates).register(registry);
        new PaceRates(gates).register(registry);
        // Every configured provider shows up with zeroes from the start, so a dashboard's rate() has a baseline.
        for (String provider : gates.keySet()) {
            for (CallOutcome outcome : CallOutcome.values()) {
                calls.labels(provider, outcome.label());
            }
            tokens.labels(provider, "input");
            tokens.labels(provider, "output");
            cost.labels(provider);
        }
    }

    void call(String provider, CallOutcome outcome, Duration latency) {
        calls.labels(provider, outcome.label()).inc();
        duration.labels(provider).observe(latency.toNanos() / 1e9);
    }

    void usage(String provider, Usage usage, BigDecimal costUsd) {
        tokens.labels(provider, "input").inc(usage.allInputTokens());
        tokens.labels(provider, "output").inc(usage.outputTokens());
        cost.labels(provider).inc(costUsd.doubleValue());
    }

    void escalation() {
        escalations.inc();
    }

    /** Read at scrape time, so the gauge can never disagree with the limit the gates enforce. */
    private static final class ConcurrencyLimits extends Collector {

        private final Map<String, ProviderGate> gates;

        ConcurrencyLimits(Map<String, ProviderGate> gates) {
            this.gates = gates;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            GaugeMetricFamily family = new GaugeMetricFamily("llm_concurrency_limit",
                    "Calls this replica currently allows itself in flight per provider (AIMD).", List.of("provider"));
            gates.forEach((name, gate) -> family.addMetric(List.of(name), gate.limit().limit()));
            return List.of(family);
        }
    }

    /** Read at scrape time, like the limits: the pace this replica keeps now, 0 while a provider states no limit. */
    private static final class PaceRates extends Collector {

        private final Map<String, ProviderGate> gates;

        PaceRates(Map<String, ProviderGate> gates) {
            this.gates = gates;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            GaugeMetricFamily family = new GaugeMetricFamily("llm_pace_requests_per_second",
                    "Requests per second this replica currently allows itself per provider, from the limit the "
                            + "provider states; 0 when not pacing or waiting for a reset.", List.of("provider"));
            gates.forEach((name, gate) -> family.addMetric(List.of(name), gate.pace().requestsPerSecond()));
            return List.of(family);
        }
    }
}
