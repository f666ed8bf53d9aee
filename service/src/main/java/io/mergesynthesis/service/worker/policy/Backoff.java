package io.mergesynthesis.service.worker.policy;

import java.time.Duration;

/**
 * How long a conflict waits after its Nth failed attempt: {@code min(base * 2^(N-1), base * 10)}, so with the
 * default base of one second 1 s, 2 s, 4 s, 8 s, then 10 s from there on.
 */
public final class Backoff {

    private static final int CAP_FACTOR = 10;

    private final Duration base;

    public Backoff(Duration base) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("the base backoff must be positive, got " + base);
        }
        this.base = base;
    }

    /** The wait after the {@code failedAttempt}th failure (1 for the first). */
    public Duration after(int failedAttempt) {
        if (failedAttempt < 1) {
            throw new IllegalArgumentException("attempts count from 1, got " + failedAttempt);
        }
        Duration cap = base.multipliedBy(CAP_FACTOR);
        // 2^4 = 16 already exceeds the cap factor; stopping there keeps the shift far from overflowing.
        int exponent = Math.min(failedAttempt - 1, 4);
        Duration doubled = base.multipliedBy(1L << exponent);
        return doubled.compareTo(cap) < 0 ? doubled : cap;
    }
}
