package io.mergesynthesis.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * The provider-bound scenarios: a stand-in provider answering at most {@code limit} requests a second (stated
 * on every answer; 429 with {@code retry-after} beyond that) after {@code latency} each. What a pool can reach in one is the lower of the
 * limit and what its workers can ask for, one call each at a time: {@code workers / latency}.
 */
enum ProviderScenario {
    FAST_ANSWERS(20, Duration.ofMillis(50)),
    SLOW_ANSWERS(50, Duration.ofSeconds(2)),
    MANY_ANSWERS(200, Duration.ofMillis(500));

    /** Workers per replica in this step, whatever the other steps use: the targets are computed from it. */
    static final int WORKERS = 4;

    final int limit;
    final Duration latency;

    ProviderScenario(int limit, Duration latency) {
        this.limit = limit;
        this.latency = latency;
    }

    /** What {@code replicas} replicas of {@link #WORKERS} workers can merge per second at most here. */
    double bound(int replicas) {
        return Math.min(limit, replicas * WORKERS / seconds());
    }

    /** Whether the workers, not the provider's limit, set the bound. */
    boolean workerBound(int replicas) {
        return replicas * WORKERS / seconds() < limit;
    }

    double seconds() {
        return latency.toNanos() / 1e9;
    }

    /** {@code l20_t50ms}: the scenario's part of a results.json key. */
    String key() {
        return "l" + limit + "_t" + latencyText().toLowerCase(Locale.ROOT);
    }

    /** {@code L=20/s T=50ms}. */
    String describe() {
        return "L=" + limit + "/s T=" + latencyText();
    }

    private String latencyText() {
        long millis = latency.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
