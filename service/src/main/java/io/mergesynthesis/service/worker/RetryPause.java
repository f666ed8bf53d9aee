package io.mergesynthesis.service.worker;

import java.time.Duration;

/**
 * The pause before the next try of something that keeps failing: {@code first}, then doubling each time up to
 * {@code last}, and back to {@code first} once it has worked. Not thread-safe: one per retrying loop.
 */
public final class RetryPause {

    private final Duration first;
    private final Duration last;
    private Duration next;

    public RetryPause(Duration first, Duration last) {
        if (first.isNegative() || first.isZero() || last.compareTo(first) < 0) {
            throw new IllegalArgumentException("pauses must be positive and the last no shorter than the first, got "
                    + first + " and " + last);
        }
        this.first = first;
        this.last = last;
        this.next = first;
    }

    /** The pause to take now; the one after it is twice as long, up to the last. */
    public Duration next() {
        Duration pause = next;
        next = next.multipliedBy(2).compareTo(last) < 0 ? next.multipliedBy(2) : last;
        return pause;
    }

    /** It worked: the next failure starts over from the first pause. */
    public void reset() {
        next = first;
    }
}
