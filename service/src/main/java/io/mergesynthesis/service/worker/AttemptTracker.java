package io.mergesynthesis.service.worker;

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
 */
public final class AttemptTracker {

    /** Long past the longest backoff, so a conflict between retries is not forgotten. */
    static final Duration FORGET_AFTER = Duration.ofHours(1);

    private final Cache<UUID, Integer> failures;

    public AttemptTracker(long maximumSize, Clock clock) {
        this.failures = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfterWrite(FORGET_AFTER.toNanos(), TimeUnit.NANOSECONDS)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .build();
    }

    /** Failed attempts recorded here for the conflict, 0 when none (or forgotten). */
    public int failuresOf(UUID conflictId) {
        Integer count = failures.getIfPresent(conflictId);
        return count == null ? 0 : count;
    }

    /** Records that attempt number {@code attempt} failed; keeps the highest number seen. */
    public void recordFailure(UUID conflictId, int attempt) {
        failures.asMap().merge(conflictId, attempt, Math::max);
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
