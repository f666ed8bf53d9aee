package io.mergesynthesis.llm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

/**
 * Paces the starts of this replica's calls to one model whose provider states no request limit and only answers
 * 429 beyond it. Nothing is paced until the first 429. Then the rate the provider let through is read from the
 * answers: the calls answered well that started in the second before the refused one. The pace drops a tenth
 * below it, climbs back quickly at first and flattens as it nears it, then probes beyond it, slowly at first
 * and faster as time passes without a 429 (the shape of TCP's CUBIC window). Most of the time is so spent just
 * under the limit, and a 429 comes once per climb rather than once per step, as a pace that adds a little after
 * every run of answers would meet them.
 */
final class UnstatedRate {

    /** How far below the rate that met a 429 the pace starts again. */
    static final double BACK_OFF = 0.1;
    /** How long the climb back to the rate that met the 429 takes; beyond it, the probing mirrors the climb. */
    static final Duration CLIMB = Duration.ofSeconds(10);
    /** The stretch of answers before a 429 that tells the rate the provider let through. */
    static final Duration MEASURED_OVER = Duration.ofSeconds(1);

    private final Clock clock;
    private final ArrayDeque<Instant> answeredStarts = new ArrayDeque<>(); // guarded by this; oldest first
    private double ceiling; // guarded by this; per second; 0 until a 429 was met
    private Instant throttledAt; // guarded by this
    private Instant lastStart; // guarded by this

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

    /** A call that started at {@code sentAt} was answered and counted. */
    synchronized void answered(Instant sentAt) {
        answeredStarts.addLast(sentAt);
        Instant horizon = clock.instant().minus(MEASURED_OVER.multipliedBy(4));
        while (!answeredStarts.isEmpty() && answeredStarts.peekFirst().isBefore(horizon)) {
            answeredStarts.removeFirst();
        }
    }

    /** The call that started at {@code sentAt} met a 429: the first of its episode. */
    synchronized void throttled(Instant sentAt) {
        Instant from = sentAt.minus(MEASURED_OVER);
        long through = answeredStarts.stream().filter(at -> at.isAfter(from) && !at.isAfter(sentAt)).count();
        double measured = through / (MEASURED_OVER.toNanos() / 1e9);
        double was = ceiling > 0 ? perSecond(clock.instant()) : Double.POSITIVE_INFINITY;
        // One answer in the stretch is the least a rate can be read from; a pace already below what was let
        // through (the 429 came from another replica's share) is the better reading.
        ceiling = Math.max(1 / (MEASURED_OVER.toNanos() / 1e9), Math.min(measured, was));
        throttledAt = clock.instant();
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
