package io.mergesynthesis.llm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Spaces the starts of this replica's calls to one model so that they stay under a limit the provider counts in
 * fixed periods and states on its answers ({@link RateLimitHeaders}): the request limit. Token limits are buckets
 * that refill continuously and are kept by {@link BucketPace}; both are kept together by the model's
 * {@link ModelLimits}. A call is charged in the limit's units when it starts ({@link Charge}) and settled at what
 * the provider counted once its answer is read.
 *
 * <p>The limit is the account's, and other replicas may be spending it too; they do not talk to each other.
 * What they share is the provider's count: every answer says how much is left until the reset. This
 * replica spreads what is left evenly over the time left, and takes of it the share it has been spending
 * itself, learnt by comparing its own spending in a period with what the count went down by meanwhile.
 * Every replica doing so leaves the period's budget spread over the period, whoever takes how much.
 * What is left is counted down from the answer by this replica's charges since, and by what the others
 * presumably spent meanwhile.
 *
 * <p>Until a provider has stated a limit nothing is paced, and an answer that states none ends pacing: 429s,
 * {@link UnstatedRate} and {@link AdaptiveLimit} remain the safety net for providers that say nothing.
 */
final class ProviderPace implements Pace {

    /**
     * What one call is charged against a limit.
     *
     * @param held     what must be left for the call to start, and is counted from its start until its answer:
     *                 the output limit holds a request's whole {@code max_tokens} while it runs
     * @param expected what the call is expected to cost in the end, which spaces the next start
     */
    record Charge(double held, double expected) {

        static final Charge ONE_REQUEST = new Charge(1, 1);
    }

    /** Starting again a little after the stated reset keeps a call from reaching the provider just before it. */
    static final double RESET_GUARD_SHARE = 0.01;
    static final Duration MIN_RESET_GUARD = Duration.ofMillis(10);
    /** How much the share learnt in earlier periods still counts after each new one. */
    static final double SHARE_MEMORY = 0.7;
    /** However little this replica has been taking, it keeps asking, or it could never learn that others left. */
    static final double MIN_SHARE = 0.05;
    /** Two answers whose resets are this close speak of the same period (OpenAI's resets are relative). */
    static final Duration SAME_PERIOD = Duration.ofMillis(50);

    private final Clock clock;
    private final Map<Long, InFlight> inFlight = new HashMap<>(); // guarded by this; started, not yet answered
    private long started; // guarded by this; calls started, numbered from 1
    private double charged; // guarded by this; what every call started so far was charged
    private double settled; // guarded by this; what was given back of that once the answers said what they cost
    private double refundable; // guarded by this; what the calls in flight hold beyond what they are expected to cost
    private Instant lastStart; // guarded by this
    private double lastExpected = 1; // guarded by this; what the last call started is expected to cost
    private long newestAnswered; // guarded by this; the highest call number answered
    private Seen latest; // guarded by this; of the newest period's answers, the one that leaves the least now
    private Duration period = Duration.ZERO; // guarded by this; the longest time to a reset seen
    private long answersInPeriod; // guarded by this; this replica's answers counted in the newest period
    private double spentInPeriod; // guarded by this; what the provider counted for them
    private double mostLeft; // guarded by this; the most and least left that those answers stated, with what
    private double leastLeft; // guarded by this; this replica's calls then held that was to come back
    private double ownSpent; // guarded by this; decayed count of this replica's spending in earlier periods
    private double allSpent; // guarded by this; decayed count of what the provider counted meanwhile

    /**
     * One answer's statement, with the call it came with.
     *
     * @param leaves what was left once the call was counted, plus everything this replica had been charged up to
     *               and including the call, less what answers had given back before it started: less what this
     *               replica has been charged since, net, it is what is left now
     */
    private record Seen(long call, Instant sentAt, RateLimitHeaders.Stated stated, double leaves) {
    }

    /**
     * A call started and not yet answered: what it was charged, everything charged up to it, what answers had
     * given back by then, and what this replica's calls then in flight (it too) held that was expected to come
     * back. A provider states what is left as it counts the call, when it arrives.
     */
    private record InFlight(Charge charge, double chargedThrough, double settledBefore, double refundableThen) {
    }

    /** A pace for a limit counted in fixed periods, as ADR 0024 describes the request limit. */
    ProviderPace(Clock clock) {
        this.clock = clock;
    }

    /**
     * How long until a call charged {@code charge} may start, with {@code ahead} calls waiting before it; zero
     * for now.
     */
    @Override
    public synchronized Duration untilStart(Charge charge, int ahead) {
        Instant now = clock.instant();
        Instant next = nextStart(now, charge);
        Duration wait = next.isAfter(now) ? Duration.between(now, next) : Duration.ZERO;
        if (ahead == 0 || latest == null) {
            return wait;
        }
        double rate = rate(now);
        if (Double.isInfinite(rate) || rate <= 0) {
            return wait;
        }
        return wait.plusNanos((long) (ahead * charge.expected() * 1e9 / rate));
    }

    /** How long until the next call like the last one may start; zero for now. */
    @Override
    public synchronized Duration untilNextStart() {
        return untilStart(new Charge(lastExpected, lastExpected), 0);
    }

    /** Counts a request as started now, whatever the pace says. */
    synchronized long start() {
        return start(Charge.ONE_REQUEST);
    }

    /**
     * Counts a call charged {@code charge} as started now, whatever the pace says.
     *
     * @return the call's number, for {@link #answered}
     */
    @Override
    public synchronized long start(Charge charge) {
        lastStart = clock.instant();
        lastExpected = charge.expected();
        charged += charge.held();
        refundable += charge.held() - charge.expected();
        long call = ++started;
        inFlight.put(call, new InFlight(charge, charged, settled, refundable));
        return call;
    }

    /**
     * What the answer to request {@code call}, sent at {@code sentAt}, said about the limit. An answer that says
     * nothing means the provider no longer states one: pacing stops.
     */
    synchronized void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated) {
        answered(call, sentAt, stated, 1);
    }

    /**
     * What the answer to call {@code call}, sent at {@code sentAt}, said about the limit, and what the provider
     * counted for the call in the end ({@code spent}): what it was charged beyond that is given back.
     */
    synchronized void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated, double spent) {
        answered(call, sentAt, stated, spent, true);
    }

    @Override
    public synchronized void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated,
                                      double spent, boolean counted) {
        InFlight was = inFlight.remove(call);
        Charge charge = was == null ? Charge.ONE_REQUEST : was.charge();
        double chargedThrough = was == null ? call : was.chargedThrough();
        double settledBefore = was == null ? settled : was.settledBefore();
        double refundableThen = was == null ? 0 : was.refundableThen();
        settled += charge.held() - spent;
        refundable -= charge.held() - charge.expected();
        boolean newest = call > newestAnswered;
        newestAnswered = Math.max(newestAnswered, call);
        if (stated.isEmpty()) {
            if (newest) {
                latest = null;
            }
            return;
        }
        Seen seen = new Seen(call, sentAt, stated.get(), stated.get().remaining() + chargedThrough - settledBefore);
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
        } else if (seen.leaves() < latest.leaves() || (seen.leaves() == latest.leaves() && call > latest.call())) {
            // Answers may come back, and calls be counted, in another order than they were sent.
            latest = seen;
        }
        // What the provider held for this replica's calls and will give back is not spending: counted as left,
        // so that the share compares what was spent.
        countInPeriod(seen.stated().remaining(), refundableThen, spent);
    }

    /**
     * A call that got no answer (no connection, no answer in time, an interrupted worker): its charge stays
     * counted until an answer about a later call says what is left.
     */
    @Override
    public synchronized void unanswered(long call) {
        InFlight was = inFlight.remove(call);
        if (was != null) {
            refundable -= was.charge().held() - was.charge().expected();
        }
    }

    /** Whether a limit is being paced to: the last answer stated one. */
    @Override
    public synchronized boolean pacing() {
        return latest != null;
    }

    /** What this replica allows itself per second now, in the limit's units; zero when not pacing or waiting. */
    @Override
    public synchronized double perSecond() {
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
            own += ownInPeriod();
            all += mostLeft - leastLeft;
        }
        if (all < 1) {
            return 1; // nothing learnt yet: alone until the count says otherwise
        }
        return Math.max(MIN_SHARE, Math.min(1, own / all));
    }

    private Instant nextStart(Instant now, Charge charge) {
        if (latest == null) {
            return now;
        }
        Instant periodEnd = latest.stated().reset().plus(guard());
        boolean inPeriod = now.isBefore(periodEnd);
        double left = inPeriod ? left(now) : 0;
        if (inPeriod && left < Math.max(1, charge.held())) {
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
        Instant next = lastStart.plusNanos((long) (lastExpected * 1e9 / rate));
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
            // What the calls in flight hold beyond their expected cost comes back before the reset: it is spread
            // too, or a limit that holds much per call (max_tokens on the output limit) would be under-used.
            double left = left(from) + refundable;
            if (left < 1) {
                return 0;
            }
            double seconds = Duration.between(from, reset).toNanos() / 1e9;
            // Spaced so that the last call of what is left starts half a spacing before the reset, not at it: a
            // call that reaches the provider at the reset is counted in the next period, and every period would
            // lose one.
            return seconds <= 0 ? Double.POSITIVE_INFINITY : share() * (left + lastExpected / 2) / seconds;
        }
        OptionalLong limit = latest.stated().limit();
        if (limit.isEmpty() || period.isZero()) {
            return Double.POSITIVE_INFINITY;
        }
        return share() * limit.getAsLong() / (period.toNanos() / 1e9);
    }

    /**
     * What is left of the period now: what the answer said, less what this replica was charged since (net of
     * what answers gave back), less what the others have presumably spent since that call was counted, at their
     * share of an even spread.
     */
    private double left(Instant now) {
        RateLimitHeaders.Stated stated = latest.stated();
        double spread = Duration.between(latest.sentAt(), stated.reset()).toNanos() / 1e9;
        double since = Math.max(0, Duration.between(latest.sentAt(), now).toNanos() / 1e9);
        double others = spread <= 0 ? 0 : (1 - share()) * stated.remaining() / spread * Math.min(since, spread);
        return latest.leaves() - (charged - settled) - others;
    }

    private Duration guard() {
        Duration share = Duration.ofNanos((long) (period.toNanos() * RESET_GUARD_SHARE));
        return share.compareTo(MIN_RESET_GUARD) > 0 ? share : MIN_RESET_GUARD;
    }

    /**
     * Between the first and the last of its calls the provider counted in one period, this replica made all of
     * its answered calls in that period but one, and the count went down by the difference in what they said
     * was left: the ratio is this replica's share, whatever order the calls were counted in. An answer with
     * nothing left is left out, as it may be a refusal that the count did not take. A call's own cost is what
     * the provider counted for it; all but one call's worth of them is this replica's part of the difference.
     */
    private void countInPeriod(long remaining, double heldToComeBack, double spent) {
        if (remaining == 0) {
            return;
        }
        double left = remaining + heldToComeBack;
        if (answersInPeriod == 0) {
            mostLeft = left;
            leastLeft = left;
            spentInPeriod = 0;
        }
        answersInPeriod++;
        spentInPeriod += Math.max(0, spent);
        mostLeft = Math.max(mostLeft, left);
        leastLeft = Math.min(leastLeft, left);
    }

    /** This replica's spending between its first and last counted call of the period: all calls' but one. */
    private double ownInPeriod() {
        return spentInPeriod * (answersInPeriod - 1) / answersInPeriod;
    }

    /** A newer period begins: what the last one taught joins what the earlier ones did, which count less. */
    private void closePeriod() {
        if (answersInPeriod >= 2 && mostLeft > leastLeft) {
            ownSpent = ownSpent * SHARE_MEMORY + Math.min(ownInPeriod(), mostLeft - leastLeft);
            allSpent = allSpent * SHARE_MEMORY + (mostLeft - leastLeft);
        }
        answersInPeriod = 0;
    }
}
