package io.mergesynthesis.llm;

import io.mergesynthesis.llm.ProviderPace.Charge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps this replica's calls to one model under a token limit the provider keeps as a bucket: it holds up to its
 * limit, refills continuously at the limit per period, and lets a call in when it holds what the call is charged
 * (Anthropic holds a request's {@code max_tokens} on the output bucket until the call ends). Every answer states
 * what was left when the call was counted and when the bucket will be full again; from the first such answer
 * this replica knows the bucket's level and its refill, and starts a call as soon as the bucket is expected to
 * hold it. A call that finds too little waits for one call's refill, never for the bucket to be full.
 *
 * <p>The level is followed in one frame that a call's start and end do not move: what the bucket holds plus what
 * this replica's calls have taken from it, net of what their answers gave back. In that frame the bucket only
 * refills, and falls by what others sharing the key spend. Each statement bounds it; Anthropic rounds what is
 * left to the nearest thousand, so a stated value that may be rounded bounds it only within half a thousand
 * either way, and the bounds of successive statements, carried forward by the refill, narrow each other. A
 * statement below what the bounds allow means others spent meanwhile: it replaces them. A call starts on the
 * lower bound, so rounding costs at most a wait, never a 429.
 */
final class BucketPace implements Pace {

    /** Anthropic states what is left rounded to the nearest thousand. */
    static final long ROUNDING = 1000;
    /** Before the refill can be read from the statements, a limit is taken to be per minute, as both providers state theirs. */
    static final Duration DEFAULT_PERIOD = Duration.ofMinutes(1);
    /**
     * A statement with less than this share of the bucket spent says too little about the refill to be read for
     * it: the time to full is short and rounded.
     */
    static final double REFILL_READ_FROM = 0.2;

    /** The shortest time over which what others sharing the key spend is read. */
    static final Duration OTHERS_READ_OVER = Duration.ofMillis(250);
    /**
     * Where what is left is rounded, what others spend is read over no less than the refill of this many times the
     * rounding: over less, the rounding of the two statements would weigh as much as what they spent.
     */
    static final double OTHERS_READ_ROUNDINGS = 2;
    /**
     * How long what the first statement says the bucket holds is spread over. Whether others share the key no
     * statement says until they have been seen spending: a replica that took all that was left at once would take
     * it from them too, and every replica of a key starting together would.
     */
    static final Duration RELEASE = Duration.ofSeconds(5);
    /** How much a new reading of the others' spending counts against what was read before. */
    static final double OTHERS_GAIN = 0.5;
    /** However much the others seem to spend, this replica counts on at least this share of the refill. */
    static final double MIN_SHARE = 0.05;

    private final Clock clock;
    private final Map<Long, InFlight> inFlight = new HashMap<>(); // guarded by this
    private long started; // guarded by this; calls started, numbered from 1
    private double net; // guarded by this; what this replica's calls took from the bucket, less what came back
    private double lastExpected = 1; // guarded by this
    private long limit; // guarded by this; 0 while no limit is stated
    private double perSecond; // guarded by this; the refill
    private double refillReadFrom; // guarded by this; how much of the bucket was spent in the statement read for it
    private boolean mayBeRounded = true; // guarded by this; every stated value so far was a whole thousand
    private long newestAnswered; // guarded by this
    private Instant boundsAt; // guarded by this; null while nothing is paced
    private long boundsFrom; // guarded by this; the call whose statement the bounds were last set or narrowed by
    private double others; // guarded by this; what others sharing the key spend per second, as read
    private Instant othersFrom; // guarded by this; the statement the next reading of the others' spending starts at
    private double othersFromMiddle; // guarded by this; the middle of its range in the frame
    private double low; // guarded by this; the bounds of the frame's level at boundsAt
    private double high; // guarded by this
    private Instant releaseFrom; // guarded by this; when the first statement was read, null once released
    private double releaseLevel; // guarded by this; the least the bucket held then, spread over RELEASE
    private double releaseNet; // guarded by this; what this replica's calls had taken then

    /** A call started and not yet answered: its charge and what this replica's calls had taken with it. */
    private record InFlight(Charge charge, double netThrough) {

        InFlight without(double refused) {
            return new InFlight(charge, netThrough - refused);
        }
    }

    BucketPace(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Duration untilStart(Charge charge, int ahead) {
        if (boundsAt == null) {
            return Duration.ZERO;
        }
        Instant now = clock.instant();
        double need = Math.max(1, Math.min(charge.held(), limit)) + ahead * Math.max(1, charge.expected())
                + sharedReserve(charge);
        double missing = need - lowestLevel(now);
        Duration forLevel = missing <= 0 ? Duration.ZERO
                : Duration.ofNanos((long) Math.ceil(missing / ownRefill() * 1e9));
        Duration forRelease = untilReleased(now);
        return forRelease.compareTo(forLevel) > 0 ? forRelease : forLevel;
    }

    /**
     * While what the first statement found is being spread, how long until this replica has taken no more than its
     * spread part and its part of the refill: a call may start whenever it has not.
     */
    private Duration untilReleased(Instant now) {
        if (releaseFrom == null) {
            return Duration.ZERO;
        }
        double seconds = Duration.between(releaseFrom, now).toNanos() / 1e9;
        double spreading = RELEASE.toNanos() / 1e9;
        if (seconds >= spreading) {
            releaseFrom = null;
            return Duration.ZERO;
        }
        double rate = releaseLevel / spreading + ownRefill();
        double taken = net - releaseNet;
        double due = taken / rate;
        return due <= seconds ? Duration.ZERO
                : Duration.ofNanos((long) Math.ceil((Math.min(due, spreading) - seconds) * 1e9));
    }

    /**
     * What is left in the bucket for the others while they are seen spending, one call's hold in the share of the
     * refill they take: they take it in whole calls, at moments this replica learns of only from its next answer,
     * so the refill they are read to take is not there evenly, and starting on the last token of it would meet
     * their calls.
     */
    private double sharedReserve(Charge charge) {
        if (!shared()) {
            return 0;
        }
        return Math.max(1, Math.min(charge.held(), limit)) * others / perSecond;
    }

    /** Whether others are seen spending from the bucket too. */
    private boolean shared() {
        return others > perSecond * MIN_SHARE;
    }

    /** The part of the refill left to this replica once the others have taken what they spend. */
    private double ownRefill() {
        return Math.max(perSecond * MIN_SHARE, perSecond - others);
    }

    @Override
    public synchronized Duration untilNextStart() {
        return untilStart(new Charge(lastExpected, lastExpected), 0);
    }

    @Override
    public synchronized long start(Charge charge) {
        net += charge.held();
        lastExpected = charge.expected();
        long call = ++started;
        inFlight.put(call, new InFlight(charge, net));
        return call;
    }

    @Override
    public synchronized void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated,
                                      double spent, boolean counted) {
        InFlight was = inFlight.remove(call);
        Charge charge = was == null ? new Charge(0, 0) : was.charge();
        // The hold is given back as soon as the call ends: what it wrote stays taken, the rest is free again.
        net -= charge.held() - (counted ? spent : 0);
        if (!counted && charge.held() > 0) {
            forgetRefused(call, charge.held());
        }
        boolean newest = call > newestAnswered;
        newestAnswered = Math.max(newestAnswered, call);
        if (stated.isEmpty() || stated.get().limit().isEmpty() || stated.get().limit().getAsLong() <= 0) {
            if (newest && counted) {
                boundsAt = null; // the provider no longer states the limit: nothing to pace to
            }
            return;
        }
        if (!newest && boundsAt != null) {
            return; // what an older call found is older than what the bounds know
        }
        read(call, stated.get(), sentAt, (was == null ? net : was.netThrough()) - (counted ? 0 : charge.held()));
    }

    /**
     * Call {@code call} was refused: the provider never took its hold, which every statement about a later call
     * was read as if it had. The bounds read from such statements, and the calls in flight after it, drop it.
     */
    private void forgetRefused(long call, double held) {
        inFlight.replaceAll((later, flying) -> later > call ? flying.without(held) : flying);
        if (boundsAt != null && boundsFrom > call) {
            low -= held;
            high -= held;
        }
    }

    /**
     * A statement about a call counted at about {@code at}, when this replica's calls had taken {@code netThen}
     * (a refused call is not among them).
     */
    private void read(long call, RateLimitHeaders.Stated stated, Instant at, double netThen) {
        long statedLimit = stated.limit().getAsLong();
        if (statedLimit != limit) {
            limit = statedLimit;
            perSecond = limit / (DEFAULT_PERIOD.toNanos() / 1e9);
            refillReadFrom = 0;
            boundsAt = null;
            others = 0;
            othersFrom = null;
        }
        long remaining = stated.remaining();
        if (remaining % ROUNDING != 0) {
            mayBeRounded = false;
        }
        double half = mayBeRounded ? ROUNDING / 2.0 : 0;
        double statedLow = Math.max(0, remaining - half) + netThen;
        double statedHigh = Math.min(limit, remaining + half) + netThen;
        readRefill(remaining + half, Duration.between(at, stated.reset()));
        readOthers(at, (statedLow + statedHigh) / 2, remaining + half < limit * (1 - REFILL_READ_FROM));
        if (boundsAt != null) {
            double carriedLow = carried(low, at);
            double carriedHigh = carried(high, at);
            if (carriedLow <= statedHigh && statedLow <= carriedHigh) {
                low = Math.max(carriedLow, statedLow);
                high = Math.min(carriedHigh, statedHigh);
                boundsAt = at.isAfter(boundsAt) ? at : boundsAt;
                boundsFrom = Math.max(boundsFrom, call);
                return;
            }
        }
        if (boundsAt == null) {
            releaseFrom = at;
            releaseLevel = Math.max(0, statedLow - netThen);
            releaseNet = netThen;
        }
        low = statedLow;
        high = statedHigh;
        boundsAt = at;
        boundsFrom = call;
    }

    /**
     * The refill, read from a statement: what was missing from the bucket over the time until it is full. What
     * is left is taken at its highest and the time from the sending, so that the refill is never read too fast.
     * The statement with the emptiest bucket is read: its time to full is the longest and its rounding the least.
     */
    private void readRefill(double leftAtMost, Duration toFull) {
        double missing = limit - leftAtMost;
        if (missing < REFILL_READ_FROM * limit || missing < refillReadFrom || toFull.isNegative()
                || toFull.isZero()) {
            return;
        }
        refillReadFrom = missing;
        perSecond = missing / (toFull.toNanos() / 1e9);
    }

    /**
     * What others sharing the key spend: in this replica's frame the bucket only refills, so what it grew by less
     * than the refill between two statements, a few seconds apart, the others spent. A full bucket does not grow
     * and tells nothing.
     */
    private void readOthers(Instant at, double middle, boolean belowFull) {
        if (othersFrom == null || !belowFull || at.isBefore(othersFrom)) {
            othersFrom = belowFull ? at : null;
            othersFromMiddle = middle;
            return;
        }
        double seconds = Duration.between(othersFrom, at).toNanos() / 1e9;
        double readOver = Math.max(OTHERS_READ_OVER.toNanos() / 1e9,
                mayBeRounded ? OTHERS_READ_ROUNDINGS * ROUNDING / perSecond : 0);
        if (seconds < readOver) {
            return;
        }
        double spent = (othersFromMiddle + perSecond * seconds - middle) / seconds;
        // Never all of the refill: a replica that counted on none would wait for a statement that only its own
        // calls can bring.
        others = Math.min(perSecond * (1 - MIN_SHARE),
                Math.max(0, others * (1 - OTHERS_GAIN) + spent * OTHERS_GAIN));
        othersFrom = at;
        othersFromMiddle = middle;
    }

    /**
     * A bound of the frame's level, carried from when the bounds were set to {@code at} by the refill, less what
     * the others are read to spend meanwhile.
     */
    private double carried(double bound, Instant at) {
        double seconds = Math.max(0, Duration.between(boundsAt, at).toNanos() / 1e9);
        return Math.min(bound + (perSecond - others) * seconds, limit + net);
    }

    /** The least the bucket may hold now. */
    private double lowestLevel(Instant now) {
        return carried(low, now) - net;
    }

    @Override
    public synchronized void unanswered(long call) {
        // The provider may have counted it: its hold stays taken until a later statement says what is left.
        inFlight.remove(call);
    }

    @Override
    public synchronized boolean pacing() {
        return boundsAt != null;
    }

    /** The refill, which is the rate this replica may spend at once while work waits. */
    @Override
    public synchronized double perSecond() {
        return boundsAt == null ? 0 : perSecond;
    }

    /** The least the bucket may hold now, as this replica sees it; for tests. */
    synchronized double lowestLevel() {
        return boundsAt == null ? Double.NaN : lowestLevel(clock.instant());
    }
}
