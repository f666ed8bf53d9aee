package io.mergesynthesis.service.worker.pool;

import java.time.Duration;
import java.util.Optional;

/**
 * The pool's settings, checked together. The one rule that spans settings: a lease must outlast the longest
 * a live worker can hold it, which is the invoke timeout plus the database writes around the call, or a second
 * worker could claim a conflict whose first worker is still going to write.
 *
 * @param owner  the name this replica's leases carry; unique per running pool
 * @param listen true to be woken by LISTEN/NOTIFY, false to rely on polling alone (for transaction-mode poolers)
 */
public record PoolSettings(String owner, int workers, Duration invokeTimeout, int maxAttempts, Duration baseBackoff,
                           Duration leaseDuration, Duration pollInterval, boolean listen, Duration shutdownGrace,
                           long attemptTrackerSize, int leasesAheadPerWorker) {

    /** At most this many leases per worker are held ahead of the workers by default (ADR 0077). */
    public static final int DEFAULT_LEASES_AHEAD_PER_WORKER = 3;
    /** The most {@code synthesis.leasesAheadPerWorker} accepts. */
    static final int MOST_LEASES_AHEAD_PER_WORKER = 16;

    /** The least time a lease must leave beyond the invoke timeout. */
    static final Duration MINIMUM_MARGIN = Duration.ofSeconds(1);

    public PoolSettings {
        require(workers >= 1, "synthesis.workers must be at least 1, got " + workers);
        require(maxAttempts >= 1, "synthesis.maxAttempts must be at least 1, got " + maxAttempts);
        require(positive(invokeTimeout), "synthesis.invokeTimeout must be positive, got " + invokeTimeout);
        require(positive(baseBackoff), "synthesis.baseBackoff must be positive, got " + baseBackoff);
        require(positive(pollInterval), "synthesis.pollInterval must be positive, got " + pollInterval);
        require(attemptTrackerSize >= 1, "synthesis.attemptTrackerSize must be at least 1, got " + attemptTrackerSize);
        require(leasesAheadPerWorker >= 0 && leasesAheadPerWorker <= MOST_LEASES_AHEAD_PER_WORKER,
                "synthesis.leasesAheadPerWorker must be between 0 (one lease per worker) and "
                        + MOST_LEASES_AHEAD_PER_WORKER + ", got " + leasesAheadPerWorker);
        leaseProblem(leaseDuration, invokeTimeout).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
    }

    /** What is wrong with this lease for this invoke timeout, naming both values; empty when it is safe. */
    public static Optional<String> leaseProblem(Duration leaseDuration, Duration invokeTimeout) {
        Duration margin = marginFor(invokeTimeout);
        if (leaseDuration.compareTo(invokeTimeout.plus(margin)) > 0) {
            return Optional.empty();
        }
        return Optional.of("synthesis.leaseDuration (" + show(leaseDuration) + ") must be longer than "
                + "synthesis.invokeTimeout (" + show(invokeTimeout) + ") plus a margin of " + show(margin)
                + ", or a worker that is still running could lose its lease to another; raise leaseDuration above "
                + show(invokeTimeout.plus(margin)) + " or lower invokeTimeout");
    }

    /** Ten percent of the invoke timeout, and never under {@link #MINIMUM_MARGIN}. */
    static Duration marginFor(Duration invokeTimeout) {
        Duration tenth = invokeTimeout.dividedBy(10);
        return tenth.compareTo(MINIMUM_MARGIN) > 0 ? tenth : MINIMUM_MARGIN;
    }

    /** "30s" or "1500ms": how durations are written in config.yml, not ISO-8601. */
    static String show(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static boolean positive(Duration duration) {
        return duration != null && !duration.isNegative() && !duration.isZero();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
