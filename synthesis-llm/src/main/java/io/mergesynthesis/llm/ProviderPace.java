package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
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
 * itself, learnt by comparing its own calls in a period with what the count went down by meanwhile.
 * Every replica doing so leaves the period's requests spread over the period, whoever takes how many.
 * What is left is counted down from the answer by this replica's calls started since, and by what the others
 * presumably spent meanwhile.
 *
 * <p>Until a provider has stated a limit nothing is paced, and an answer that states none ends pacing: 429s and
 * {@link AdaptiveLimit} remain the safety net for providers that say nothing.
 */
final class ProviderPace {

    /** Starting again a little after the stated reset keeps a call from reaching the provider just before it. */
    static final double RESET_GUARD_SHARE = 0.01;
    static final Duration MIN_RESET_GUARD = Duration.ofMillis(10);
    /** How much the share learnt in earlier periods still counts after each new one. */
    static final double SHARE_MEMORY = 0.7;
    /** However little this replica has been taking, it keeps asking, or it could never learn that others left. */
    static final double MIN_SHARE = 0.05;
    /** Two answers whose resets are this close speak of the same period (OpenAI's resets are relative). */
    static final Duration SAME_PERIOD = Duration.ofMillis(50);

    /** Waiters behind others look again at least this often, besides being woken. */
    private static final long MIN_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Clock clock;
    private final Ticker ticker;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>(); // guarded by this; calls waiting, in order
    private long started; // guarded by this; calls started, numbered from 1
    private Instant lastStart; // guarded by this
    private long newestAnswered; // guarded by this; the highest call number answered
    private Seen latest; // guarded by this; of the newest period's answers, the one that leaves the least now
    private Duration period = Duration.ZERO; // guarded by this; the longest time to a reset seen
    private long answersInPeriod; // guarded by this; this replica's answers counted in the newest period
    private long mostLeft; // guarded by this; the most and least left that those answers stated
    private long leastLeft; // guarded by this
    private double ownSpent; // guarded by this; decayed count of this replica's calls in earlier periods
    private double allSpent; // guarded by this; decayed count of what the provider counted meanwhile

    /** One answer's statement, with the call it came with. */
    private record Seen(long call, Instant sentAt, RateLimitHeaders.Stated stated) {
    }

    ProviderPace(Clock clock, Ticker ticker) {
        this.clock = clock;
        this.ticker = ticker;
    }

    /**
     * Waits until a call may start, at most {@code maxWait}, and counts it as started. Waiting calls take their
     * turns in the order they came, so that none is passed over until it gives up.
     *
     * @return the call's number, for {@link #answered}; empty, at once, when its turn would come later
     */
    synchronized OptionalLong awaitStart(Duration maxWait) throws InterruptedException {
        long deadline = ticker.nanos() + maxWait.toNanos();
        Object me = new Object();
        waiting.addLast(me);
        try {
            while (true) {
                Duration wait = untilTurn(ahead(me));
                if (wait.isZero() && waiting.peekFirst() == me) {
                    return OptionalLong.of(start());
                }
                if (wait.toNanos() > deadline - ticker.nanos()) {
                    return OptionalLong.empty();
                }
                // A newer answer may shorten the wait, a call ahead leaving end it; both wake us.
                TimeUnit.NANOSECONDS.timedWait(this, Math.max(wait.toNanos(), MIN_NAP_NANOS));
            }
        } finally {
            waiting.remove(me);
            notifyAll();
        }
    }

    private int ahead(Object me) {
        int n = 0;
        for (Object waiter : waiting) {
            if (waiter == me) {
                return n;
            }
            n++;
        }
        return n;
    }

    /** How long until the turn of the call with {@code ahead} calls waiting before it. */
    private Duration untilTurn(int ahead) {
        Duration next = untilNextStart();
        if (ahead == 0 || latest == null) {
            return next;
        }
        double rate = rate(clock.instant());
        if (Double.isInfinite(rate) || rate <= 0) {
            return next;
        }
        return next.plusNanos((long) (ahead * 1e9 / rate));
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
        boolean newest = call > newestAnswered;
        newestAnswered = Math.max(newestAnswered, call);
        if (stated.isEmpty()) {
            if (newest) {
                latest = null;
                notifyAll();
            }
            return;
        }
        Seen seen = new Seen(call, sentAt, stated.get());
        Instant reset = seen.stated().reset();
        Duration toReset = Duration.between(sentAt, reset);
        if (toReset.compareTo(period) > 0) {
            period = toReset;
        }
        if (latest != null && reset.isBefore(latest.stated().reset().minus(SAME_PERIOD))) {
            return; // a late answer about a period that is over
        }
        if (latest == null || reset.isAfter(latest.stated().reset().plus(SAME_PERIOD))
                || !seen.stated().limit().equals(latest.stated().limit())) {
            // A new period, or a new limit: what was counted against the old one says nothing about this one.
            closePeriod();
            latest = seen;
        } else if (leaves(seen) < leaves(latest) || (leaves(seen) == leaves(latest) && call > latest.call())) {
            // Answers may come back, and calls be counted, in another order than they were sent.
            latest = seen;
        }
        countInPeriod(seen.stated().remaining());
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
        double own = ownSpent;
        double all = allSpent;
        if (answersInPeriod >= 2) {
            own += answersInPeriod - 1;
            all += mostLeft - leastLeft;
        }
        if (all < 1) {
            return 1; // nothing learnt yet: alone until the count says otherwise
        }
        return Math.max(MIN_SHARE, Math.min(1, own / all));
    }

    private Instant nextStart(Instant now) {
        if (latest == null) {
            return now;
        }
        Instant periodEnd = latest.stated().reset().plus(guard());
        boolean inPeriod = now.isBefore(periodEnd);
        if (inPeriod && left(now) < 1) {
            return periodEnd;
        }
        double rate = rate(now);
        if (Double.isInfinite(rate) || lastStart == null) {
            return now;
        }
        if (rate <= 0) {
            return inPeriod ? periodEnd : now; // a stated limit of 0 is left to the 429s
        }
        if (!inPeriod && lastStart.isBefore(periodEnd)) {
            // The first call of a new period goes at once: spacing it from the old period's last call would
            // leave an interval of every period unused.
            return now;
        }
        Instant next = lastStart.plusNanos((long) (1e9 / rate));
        // No turn within a period lies beyond its end: from then on the new period's pace applies.
        return inPeriod && next.isAfter(periodEnd) ? periodEnd : next;
    }

    /**
     * The rate for now: within the stated period, this replica's share of what is left over the time left since
     * its last start; once the period has reset (and no answer has said more yet), its share of the stated limit
     * per period. Infinite when nothing holds it back.
     */
    private double rate(Instant now) {
        Instant reset = latest.stated().reset();
        if (now.isBefore(reset.plus(guard()))) {
            // Spread from the last start, with what was left then: counted from now, each wait would leave one
            // interval of the period unused at its end.
            Instant from = lastStart != null && lastStart.isBefore(now) ? lastStart : now;
            double left = left(from);
            if (left < 1) {
                return 0;
            }
            double seconds = Duration.between(from, reset).toNanos() / 1e9;
            return seconds <= 0 ? Double.POSITIVE_INFINITY : share() * left / seconds;
        }
        OptionalLong limit = latest.stated().limit();
        if (limit.isEmpty() || period.isZero()) {
            return Double.POSITIVE_INFINITY;
        }
        return share() * limit.getAsLong() / (period.toNanos() / 1e9);
    }

    /**
     * What is left of the period now: what the answer said, less the calls this replica started since, less what
     * the others have presumably spent since that call was counted, at their share of an even spread.
     */
    private double left(Instant now) {
        RateLimitHeaders.Stated stated = latest.stated();
        double spread = Duration.between(latest.sentAt(), stated.reset()).toNanos() / 1e9;
        double since = Math.max(0, Duration.between(latest.sentAt(), now).toNanos() / 1e9);
        double others = spread <= 0 ? 0 : (1 - share()) * stated.remaining() / spread * Math.min(since, spread);
        return leaves(latest) - started - others;
    }

    /**
     * What was left after this answer's call, plus the call's number: less {@link #started}, it is what is left
     * once every call of ours started after it is taken off.
     */
    private static long leaves(Seen seen) {
        return seen.stated().remaining() + seen.call();
    }

    private Duration guard() {
        Duration share = Duration.ofNanos((long) (period.toNanos() * RESET_GUARD_SHARE));
        return share.compareTo(MIN_RESET_GUARD) > 0 ? share : MIN_RESET_GUARD;
    }

    /**
     * Between the first and the last of its calls the provider counted in one period, this replica made all of
     * its answered calls in that period but one, and the count went down by the difference in what they said
     * was left: the ratio is this replica's share, whatever order the calls were counted in. An answer with
     * nothing left is left out, as it may be a refusal that the count did not take.
     */
    private void countInPeriod(long remaining) {
        if (remaining == 0) {
            return;
        }
        if (answersInPeriod == 0) {
            mostLeft = remaining;
            leastLeft = remaining;
        }
        answersInPeriod++;
        mostLeft = Math.max(mostLeft, remaining);
        leastLeft = Math.min(leastLeft, remaining);
    }

    /** A newer period begins: what the last one taught joins what the earlier ones did, which count less. */
    private void closePeriod() {
        if (answersInPeriod >= 2 && mostLeft > leastLeft) {
            ownSpent = ownSpent * SHARE_MEMORY + Math.min(answersInPeriod - 1, mostLeft - leastLeft);
            allSpent = allSpent * SHARE_MEMORY + (mostLeft - leastLeft);
        }
        answersInPeriod = 0;
    }
}
