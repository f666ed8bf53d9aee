package io.mergesynthesis.service.worker.batch;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import java.util.Map;
import java.util.Set;

/**
 * The batch lane's metrics: {@code llm_batches_total{provider,outcome}} and
 * {@code llm_batch_requests_waiting{provider}}. {@code provider} takes only configured provider names.
 */
final class BatchMetrics {

    /** A batch created at the provider, as its create was answered. */
    static final String SENT = "sent";
    /** A batch whose create went unanswered, found at the provider. */
    static final String ADOPTED = "adopted";
    /** A batch whose create went unanswered, which the provider never made. */
    static final String NEVER_MADE = "never_made";
    /** A create that got no usable answer. */
    static final String CREATE_FAILED = "create_failed";
    /** A batch ended at the provider with its results stored. */
    static final String ENDED = "ended";

    private final Counter batches;
    private final Gauge waiting;

    BatchMetrics(CollectorRegistry registry) {
        this.batches = Counter.build("llm_batches_total",
                        "Batches of the batch lane, by provider and what became of them: sent, adopted, never_made, "
                                + "create_failed, ended.")
                .labelNames("provider", "outcome").register(registry);
        this.waiting = Gauge.build("llm_batch_requests_waiting",
                        "Requests in batches the provider has not answered yet, by provider, as of the last round.")
                .labelNames("provider").register(registry);
    }

    void batch(String provider, String outcome) {
        batches.labels(provider, outcome).inc();
    }

    /** The requests waiting now, by provider; a provider among {@code providers} with none reads 0. */
    void waiting(Set<String> providers, Map<String, Long> byProvider) {
        for (String provider : providers) {
            waiting.labels(provider).set(byProvider.getOrDefault(provider, 0L));
        }
    }
}
