package io.mergesynthesis.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * The provider-bound scenarios: a stand-in provider answering at most {@code limit} requests a second (stated
 * on every answer, or not at all; 429 with {@code retry-after} beyond that) after {@code latency} each. What a
 * pool can reach in one is the lower of the limit and what its workers can ask for, one call each at a time:
 * {@code workers / latency}.
 */
enum ProviderScenario {
    FAST_ANSWERS(20, Duration.ofMillis(50), true),
    SLOW_ANSWERS(50, Duration.ofSeconds(2), true),
    MANY_ANSWERS(200, Duration.ofMillis(500), true),
    /** As {@link #FAST_ANSWERS}, from a provider that states no limit: it is found from the 429s alone. */
    UNSTATED_LIMIT(20, Duration.ofMillis(50), false);

    /** Workers per replica in this step, whatever the other steps use: the targets are computed from it. */
    static final int WORKERS = 4;

    final int limit;
    final Duration latency;
    /** Whether the stand-in states the limit in its answers' headers. */
    final boolean stated;

    ProviderScenario(int limit, Duration latency, boolean stated) {
        this.limit = limit;
        this.latency = latency;
        this.stated = stated;
    }

    /**
     * The share of the bound the merge rate must reach with this many replicas: a stated limit 0.95 alone and
     * 0.90 shared; one nobody states 0.90, found from the first call.
     */
    double share(int replicas) {
        return replicas == 1 && stated ? 0.95 : 0.90;
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

    /** {@code l20_t50ms}, {@code l20_t50ms_unstated}: the scenario's part of a results.json key. */
    String key() {
        return "l" + limit + "_t" + latencyText().toLowerCase(Locale.ROOT) + (stated ? "" : "_unstated");
    }

    /** {@code L=20/s T=50ms}, {@code L=20/s unstated T=50ms}. */
    String describe() {
        return "L=" + limit + "/s " + (stated ? "" : "unstated ") + "T=" + latencyText();
    }

    private String latencyText() {
        long millis = latency.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
