package io.mergesynthesis.standin;

import java.time.Duration;
import java.time.Instant;

/**
 * One token limit of the stand-in, as Anthropic and OpenAI enforce theirs: a bucket of {@code limit} tokens that
 * refills continuously at {@code limit} per period. A request is let in only when the bucket holds what it is
 * charged; what a request was charged beyond what it used can be given back when it ends.
 */
final class TokenBucket {

    private final long limit;
    private final double perNano;
    private double level; // guarded by this
    private long lastNanos; // guarded by this

    TokenBucket(long limit, Duration period) {
        this(limit, period, 1);
    }

    /** A bucket that starts {@code startLevel} full (a share of its limit): someone else spent the rest. */
    TokenBucket(long limit, Duration period, double startLevel) {
        if (limit <= 0 || period.isZero() || period.isNegative()) {
            throw new IllegalArgumentException("a token bucket needs a positive limit and period, not " + limit
                    + " per " + period);
        }
        this.limit = limit;
        this.perNano = limit / (double) period.toNanos();
        this.level = limit * startLevel;
        this.lastNanos = System.nanoTime();
    }

    long limit() {
        return limit;
    }

    /** Takes {@code tokens} when the bucket holds that many; false, and nothing taken, when it does not. */
    synchronized boolean take(long tokens) {
        refill();
        if (level < tokens) {
            return false;
        }
        level -= tokens;
        return true;
    }

    /** Gives back what a request was charged and did not use; the bucket never holds more than its limit. */
    synchronized void giveBack(long tokens) {
        refill();
        level = Math.min(limit, level + Math.max(0, tokens));
    }

    /** Takes {@code tokens} a request used beyond its charge, even below empty, as a provider would count them. */
    synchronized void spend(long tokens) {
        refill();
        level -= Math.max(0, tokens);
    }

    /** Whole tokens in the bucket now. */
    synchronized long remaining() {
        refill();
        return Math.max(0, (long) Math.floor(level));
    }

    /** When the bucket will be full again, as the providers state a token limit's reset. */
    synchronized Instant fullAt() {
        refill();
        return Instant.now().plusNanos((long) Math.ceil((limit - level) / perNano));
    }

    /** How long until the bucket holds {@code tokens}; zero when it does now. */
    synchronized Duration until(long tokens) {
        refill();
        double missing = Math.min(tokens, limit) - level;
        return missing <= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(missing / perNano));
    }

    private void refill() {
        long now = System.nanoTime();
        level = Math.min(limit, level + (now - lastNanos) * perNano);
        lastNanos = now;
    }
}
