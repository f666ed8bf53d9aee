package io.mergesynthesis.llm;

import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.OptionalLong;

/**
 * A provider's token bucket on the test's clock, as Anthropic keeps one: it refills continuously at its limit per
 * period, lets a call in only when it holds what the call is charged, and states what is left rounded to the
 * nearest thousand (when told to) with the instant, in whole seconds, at which it will be full.
 */
final class ProviderBucket {

    private final TestClock clock;
    private final long limit;
    private final Duration period;
    private final boolean rounds;
    private double level;
    private Instant at;

    ProviderBucket(TestClock clock, long limit, Duration period, double startingShare, boolean rounds) {
        this.clock = clock;
        this.limit = limit;
        this.period = period;
        this.rounds = rounds;
        this.level = limit * startingShare;
        this.at = clock.instant();
    }

    double perSecond() {
        return limit / (period.toNanos() / 1e9);
    }

    /** Takes {@code tokens} when the bucket holds them; false, taking nothing, when it does not. */
    boolean take(double tokens) {
        refill();
        if (level < Math.min(tokens, limit)) {
            return false;
        }
        level -= tokens;
        return true;
    }

    void giveBack(double tokens) {
        refill();
        level = Math.min(limit, level + tokens);
    }

    double level() {
        refill();
        return level;
    }

    /** What an answer says about the bucket now. */
    Stated stated() {
        refill();
        long whole = (long) Math.floor(level);
        long remaining = rounds ? Math.round(whole / 1000.0) * 1000 : whole;
        double toFullNanos = (limit - level) / perSecond() * 1e9;
        Instant full = clock.instant().plusNanos((long) Math.ceil(toFullNanos));
        Instant stated = full.truncatedTo(ChronoUnit.SECONDS);
        return new Stated(OptionalLong.of(limit), remaining, stated.isBefore(full) ? stated.plusSeconds(1) : stated);
    }

    private void refill() {
        Instant now = clock.instant();
        level = Math.min(limit, level + perSecond() * Duration.between(at, now).toNanos() / 1e9);
        at = now;
    }
}
