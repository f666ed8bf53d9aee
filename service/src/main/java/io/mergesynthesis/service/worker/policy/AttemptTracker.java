package io.mergesynthesis.service.worker.policy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The failed attempts this replica has seen per conflict, in memory and bounded: at most {@code maximumSize}
 * conflicts are remembered, least recently used ones go first, and an entry is forgotten a while after its
 * last failure. It is a per-replica hint, not the bound on attempts: the durable {@code attempts} column,
 * counted up by every claim in every replica, is (see the ADR on the attempt tracker).
 *
 * <p>Each entry also keeps the durable claim count of the lease whose attempt failed. Every later claim counts
 * higher, since a claim only ever adds one and a hand-back only takes its own claim's one back; a lease that
 * counts no higher means the count was reset since (a marked conflict re-queued, perhaps by another replica or
 * the command line), and what this replica remembers from before the reset no longer counts.
 */
public final class AttemptTracker {

    /** Long past the longest backoff, so a conflict between retries is not forgotten. */
    static final Duration FORGET_AFTER = Duration.ofHours(1);

    /** The highest failed attempt seen, and the claim count of the lease it failed on. */
    private record Remembered(int failures, int claims) {

        /** The later of two memories; one from before a reset of the claim count gives way to one after it. */
        Remembered merge(Remembered other) {
            if (other.claims < claims) {
                return other;
            }
            if (claims < other.claims) {
                return new Remembered(Math.max(failures, other.failures), other.claims);
            }
            return failures >= other.failures ? this : other;
        }
    }

    private final Cache<UUID, Remembered> failures;

    public AttemptTracker(long maximumSize, Clock clock) {
        this.failures = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfterWrite(FORGET_AFTER.toNanos(), TimeUnit.NANOSECONDS)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .build();
    }

    /**
     * Failed attempts recorded here for the conflict, 0 when none (or forgotten), as seen by a lease whose claim
     * made the durable count {@code claims}: 0 too when the count was reset since they were recorded.
     */
    public int failuresOf(UUID conflictId, int claims) {
        Remembered remembered = failures.getIfPresent(conflictId);
        if (remembered == null) {
            return 0;
        }
        if (claims <= remembered.claims()) {
            failures.asMap().remove(conflictId, remembered);
            return 0;
        }
        return remembered.failures();
    }

    /**
     * Records that attempt number {@code attempt}, made on a lease whose claim made the durable count
     * {@code claims}, failed; keeps the highest attempt number seen since the count was last reset.
     */
    public void recordFailure(UUID conflictId, int attempt, int claims) {
        failures.asMap().merge(conflictId, new Remembered(attempt, claims), Remembered::merge);
    }

    /** The conflict is done: nothing left to count. */
    public void forget(UUID conflictId) {
        failures.invalidate(conflictId);
    }

    /** Runs pending evictions now (Caffeine otherwise does it lazily). */
    public void cleanUp() {
        failures.cleanUp();
    }

    public long estimatedSize() {
        return failures.estimatedSize();
    }
}
