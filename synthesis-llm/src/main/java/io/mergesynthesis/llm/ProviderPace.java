package io.mergesynthesis.llm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Spaces the starts of this replica's calls to one provider so that they stay under the request limit the
 * provider states on its answers ({@link RateLimitHeaders}), instead of finding the limit by running into 429s.
 *
 * <p>The limit is the account's, and other replicas may be spending it too; they do not talk to each other.
 * What they share is the provider's count: every answer says how many requests are left until the reset. This
 * replica spreads what is left evenly over the time left, and takes of it the share it has been spending
 * itself, learnt by comparing its own calls between two answers with what the count went down by meanwhile.
 * Every replica doing so leaves the window's requests spread over the window, whoever takes how many.
 * What is left is counted down from the newest answer by this replica's calls since, and by what the others
 * presumably spent meanwhile.
 *
 * <p>Until a provider has stated a limit nothing is paced, and an answer that states none ends pacing: 429s and
 * {@link AdaptiveLimit} remain the safety net for providers that say nothing.
 */
final class ProviderPace {

    /** Starting again a little after the stated reset keeps a call from reaching the provider just before it. */
    static final double RESET_GUARD_SHARE = 0.01;
    static final Duration MIN_RESET_GUARD = Duration.ofMillis(10);
    /** How much the share learnt from earlier answers still counts after each new one. */
    static final double SHARE_MEMORY = 0.9;
    /** However little this replica has been taking, it keeps asking, or it could never learn that others left. */
    static final double MIN_SHARE = 0.05;
    /** Two answers whose resets are this close speak of the same period (OpenAI's resets are relative). */
    static final Duration SAME_PERIOD = Duration.ofMillis(50);

    private final Clock clock;
    private long started; // guarded by this; calls started, numbered from 1
    private Instant lastStart; // guarded by this
    private Seen latest; // guarded by this; the newest-started call whose answer stated the limit
    private Duration period = Duration.ZERO; // guarded by this; the longest time to a reset seen
    private double ownSpent; // guarded by this; decayed count of this replica's calls between answers
    private double allSpent; // guarded by this; decayed count of what the provider counted meanwhile

    /** One answer's statement, with the call it came with. */
    private record Seen(long call, Instant sentAt, RateLimitHeaders.Stated stated) {
    }

    ProviderPace(Clock clock) {
        this.clock = clock;
    }

    /**
     * Waits until a call may start, at most {@code maxWait}, and counts it as started.
     *
     * @return the call's number, for {@link #answered}; empty, at once, when the wait would be longer
     */
    synchronized OptionalLong awaitStart(Duration maxWait) throws InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Duration wait = untilNextStart();
            if (wait.isZero()) {
                return OptionalLong.of(start());
            }
            if (wait.toNanos() > deadline - System.nanoTime()) {
                return OptionalLong.empty();
            }
            // A newer answer may shorten the wait; answered() wakes us.
            TimeUnit.NANOSECONDS.timedWait(this, wait.toNanos());
        }
    }

    /** How long until the next call may start; zero for now. */
    synchronized Duration untilNextStart() {
        Instant now = clock.instant();
        Instant next = nextStart(now);
        return next.isAfter(now) ? Duration.between(now, next) : Duration.ZERO;
    }

    /** Counts a call as started now, whatever the pace says. */
    synchronized long start() {
        lastStart = clock.instant();
        return ++started;
    }

    /**
     * What the answer to call {@code call}, sent at {@code sentAt}, said about the limit. An answer that says
     * nothing means the provider no longer states one: pacing stops.
     */
    synchronized void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated) {
        if (latest != null && call <= latest.call()) {
            return; // older news than what we act on
        }
        if (stated.isEmpty()) {
            latest = null;
            notifyAll();
            return;
        }
        Seen seen = new Seen(call, sentAt, stated.get());
        Duration toReset = Duration.between(sentAt, seen.stated().reset());
        if (toReset.compareTo(period) > 0) {
            period = toReset;
        }
        learnShare(seen);
        latest = seen;
        notifyAll();
    }

    /** The requests per second this replica allows itself now; zero when it is not pacing or waits for a reset. */
    synchronized double requestsPerSecond() {
        if (latest == null) {
            return 0;
        }
        double rate = rate(clock.instant());
        return Double.isInfinite(rate) ? 0 : rate;
    }

    /** The part of the provider's count this replica has been spending, between {@link #MIN_SHARE} and 1. */
    synchronized double share() {
        if (allSpent < 1) {
            return 1; // nothing learnt yet: alone until the count says otherwise
        }
        return Math.max(MIN_SHARE, Math.min(1, ownSpent / allSpent));
    }

    private Instant nextStart(Instant now) {
        if (latest == null) {
            return now;
        }
        Instant reset = latest.stated().reset();
        if (now.isBefore(reset.plus(guard())) && left(now) < 1) {
            return reset.plus(guard());
        }
        double rate = rate(now);
        if (Double.isInfinite(rate) || lastStart == null) {
            return now;
        }
        return lastStart.plusNanos((long) (1e9 / rate));
    }

    /**
     * The rate for now: within the stated period, this replica's share of what is left over the time left;
     * once it has reset (and no answer has said more yet), its share of the stated limit per period.
     * Infinite when nothing holds it back.
     */
    private double rate(Instant now) {
        Instant reset = latest.stated().reset();
        if (now.isBefore(reset.plus(guard()))) {
            double left = left(now);
            if (left < 1) {
                return 0;
            }
            double seconds = Duration.between(now, reset).toNanos() / 1e9;
            return seconds <= 0 ? Double.POSITIVE_INFINITY : share() * left / seconds;
        }
        OptionalLong limit = latest.stated().limit();
        if (limit.isEmpty() || period.isZero()) {
            return Double.POSITIVE_INFINITY;
        }
        return share() * limit.getAsLong() / (period.toNanos() / 1e9);
    }

    /**
     * What is left of the period now: what the newest answer said, less the calls this replica started since,
     * less what the others have presumably spent since that call was counted, at their share of an even spread.
     */
    private double left(Instant now) {
        RateLimitHeaders.Stated stated = latest.stated();
        double own = started - latest.call();
        double spread = Duration.between(latest.sentAt(), stated.reset()).toNanos() / 1e9;
        double since = Math.max(0, Duration.between(latest.sentAt(), now).toNanos() / 1e9);
        double others = spread <= 0 ? 0 : (1 - share()) * stated.remaining() / spread * Math.min(since, spread);
        return stated.remaining() - own - others;
    }

    private Duration guard() {
        Duration share = Duration.ofNanos((long) (period.toNanos() * RESET_GUARD_SHARE));
        return share.compareTo(MIN_RESET_GUARD) > 0 ? share : MIN_RESET_GUARD;
    }

    /**
     * Between the previous answer and this one, this replica started {@code call - previous.call} calls and the
     * provider's count went down by the difference in what is left: the ratio is this replica's share. Only
     * pairs within one period say that; an answer with nothing left may be a refusal the count did not take.
     */
    private void learnShare(Seen seen) {
        if (latest == null || seen.stated().remaining() == 0
                || seen.stated().remaining() > latest.stated().remaining()
                || Duration.between(latest.stated().reset(), seen.stated().reset()).abs().compareTo(SAME_PERIOD) > 0) {
            return;
        }
        long own = seen.call() - latest.call();
        long all = Math.max(own, latest.stated().remaining() - seen.stated().remaining());
        ownSpent = ownSpent * SHARE_MEMORY + own;
        allSpent = allSpent * SHARE_MEMORY + all;
    }
}
