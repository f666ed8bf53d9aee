package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Replica;

/**
 * Which parts of the product the jar under test has, found out the way an operator would: the worker pool
 * exports its {@code synthesis_attempts_total} counter on {@code /metrics}. Measurements of a missing part are
 * reported as skipped with the reason, so the benchmark runs against any build.
 */
final class Capabilities {

    static final String POOL_METRIC = "synthesis_attempts_total";

    private Capabilities() {
    }

    /** Empty when the replica runs a worker pool, else why it seems not to. */
    static java.util.Optional<String> poolMissing(Replica replica) {
        String metrics = replica.metrics();
        if (metrics.contains(POOL_METRIC)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("the worker pool is not in this build (no " + POOL_METRIC
                + " on the admin /metrics)");
    }
}
