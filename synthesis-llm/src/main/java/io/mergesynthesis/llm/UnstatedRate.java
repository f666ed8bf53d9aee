package io.mergesynthesis.llm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

/**
 * Paces the starts of this replica's calls to one model whose provider states no limit and only answers 429
 * beyond one. Nothing is paced until the first 429. Then the rate the provider let through is read from the
 * calls it let through since the last pause, up to its refusal: the most that started within any one second. A
 * call let through that answers after the 429 (a refusal comes back at once, a model takes its time) is read then.
 * The pace drops a twentieth below it, climbs back quickly at first and flattens as it nears it,
 * then probes beyond it, slowly at first and faster as time passes without a 429 (the shape of TCP's CUBIC
 * window). Most of the time is so spent just under the limit, and a 429 comes once per climb rather than once
 * per step, as a concurrency that adds one after every run of answers would meet them.
 */
final class UnstatedRate {

    /** How far below the rate that met a 429 the pace starts again. */
    static final double BACK_OFF = 0.05;
    /**
     * How long the climb back to the rate that met the 429 takes; beyond it, the probing mirrors the climb. Each
     * 429 costs the pause the provider asks for (a second or so) besides the climb, so climbs are long.
     */
    static final Duration CLIMB = Duration.ofSeconds(20);
    /** The longest stretch of answers before a 429 that is read for the rate the provider let through. */
    static final Duration MEASURED_OVER = Duration.ofSeconds(5);
    /** The window a rate is counted in. */
    static final Duration WINDOW = Duration.ofSeconds(1);

    private final Clock clock;
    private final ArrayDeque<Instant> answeredStarts = new ArrayDeque<>(); // guarded by this; oldest first
    private double ceiling; // guarded by this; per second; 0 until a 429 was met
    private Instant throttledAt; // guarded by this
    private Instant lastStart; // guarded by this
    private Instant resumedAt; // guarded by this; when the pause of the last 429 ended
    private Reading lastReading; // guarded by this; null until a 429 was met

    /**
     * The stretch the last 429's rate was read over, from the last pause (or the first answer) to when the refusal
     * was read, and the pace then, which a later reading of it does not exceed.
     */
    private record Reading(Instant from, Instant to, double cap) {

        boolean covers(Instant sentAt) {
            return !sentAt.isBefore(from) && !sentAt.isAfter(to);
        }
    }

    UnstatedRate(Clock clock) {
        this.clock = clock;
    }

    /** How long until the next call may start, with {@code ahead} calls waiting before it; zero for now. */
    synchronized Duration untilStart(int ahead) {
        if (ceiling <= 0 || lastStart == null) {
            return Duration.ZERO;
        }
        Instant now = clock.instant();
        double interval = 1e9 / perSecond(now);
        Instant next = lastStart.plusNanos((long) (interval * (1 + ahead)));
        return next.isAfter(now) ? Duration.between(now, next) : Duration.ZERO;
    }

    synchronized void started() {
        lastStart = clock.instant();
    }

    /**
     * A call that started at {@code sentAt} was answered and counted. One that started before the last refused
     * call and came back after its 429 was let through too: the rate read then counted it not, and is read again.
     */
    synchronized void answered(Instant sentAt) {
        answeredStarts.addLast(sentAt);
        Instant horizon = clock.instant().minus(MEASURED_OVER.multipliedBy(4));
        while (!answeredStarts.isEmpty() && answeredStarts.peekFirst().isBefore(horizon)) {
            answeredStarts.removeFirst();
        }
        if (lastReading != null && lastReading.covers(sentAt)) {
            ceiling = Math.max(ceiling, Math.min(busiestSecond(lastReading.from(), lastReading.to()),
                    lastReading.cap()));
        }
    }

    /**
     * The call that started at {@code sentAt} met a 429, the first of its episode, and no call goes before
     * {@code resumeAt}. A call sent before the last 429 was read went out at the old pace and teaches nothing new.
     */
    synchronized void throttled(Instant sentAt, Instant resumeAt) {
        if (throttledAt != null && sentAt.isBefore(throttledAt)) {
            return;
        }
        // The rate is read over the answers of a stretch back, since the last pause ended and the first answer:
        // a pause or the start inside the stretch would read as a slower provider.
        Instant from = sentAt.minus(MEASURED_OVER);
        if (resumedAt != null && resumedAt.isAfter(from)) {
            from = resumedAt;
        }
        if (!answeredStarts.isEmpty() && answeredStarts.peekFirst().isAfter(from)) {
            from = answeredStarts.peekFirst();
        }
        // It ends as the refusal is read, not at the refused call's start: calls sent beside it and let through
        // were counted in the same window.
        Instant now = clock.instant();
        double measured = busiestSecond(from, now);
        double was = ceiling > 0 ? perSecond(now) : Double.POSITIVE_INFINITY;
        // A pace already below what was let through (the 429 came from another replica's share) is the better
        // reading; one call a second is the least a rate is read as.
        ceiling = Math.max(1, Math.min(measured, was));
        throttledAt = now;
        resumedAt = resumeAt;
        lastReading = new Reading(from, now, was);
    }

    /**
     * The rate the provider let through between {@code from} and {@code to}: the most calls answered that started
     * within any one second of it, the window providers that state nothing mostly count in. A machine too busy to
     * keep an even pace sends in bursts, and its average would read the provider slower than it is. A stretch
     * shorter than a second (the start, or just after a pause) holds the calls of that second's window: over its
     * own length it would read the pace they were sent at, however far above the limit.
     */
    private double busiestSecond(Instant from, Instant to) {
        Instant[] starts = answeredStarts.stream().filter(at -> !at.isBefore(from) && !at.isAfter(to)).sorted()
                .toArray(Instant[]::new);
        Duration span = Duration.between(from, to);
        if (span.compareTo(WINDOW) < 0) {
            return starts.length / (WINDOW.toNanos() / 1e9);
        }
        int most = 0;
        for (int first = 0, last = 0; last < starts.length; last++) {
            while (!starts[first].plus(WINDOW).isAfter(starts[last])) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most / (WINDOW.toNanos() / 1e9);
    }

    /** Whether a 429 has taught a rate. */
    synchronized boolean learnt() {
        return ceiling > 0;
    }

    /** What this replica allows itself per second now; zero when nothing is paced. */
    synchronized double perSecond() {
        return ceiling <= 0 ? 0 : perSecond(clock.instant());
    }

    private double perSecond(Instant now) {
        double x = Duration.between(throttledAt, now).toNanos() / (double) CLIMB.toNanos() - 1;
        return ceiling * (1 + BACK_OFF * x * x * x);
    }
}
