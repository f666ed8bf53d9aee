package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A provider that states no limit and answers 429 beyond one, on the hand-moved clock. */
class UnstatedRateTest {

    private static final Duration STEP = Duration.ofMillis(5);
    private static final Duration LATENCY = Duration.ofMillis(200);
    /** A provider refuses a call at its door, long before a model would have answered it. */
    private static final Duration REFUSAL_LATENCY = Duration.ofMillis(10);
    private static final int WORKERS = 16;
    private static final int PER_SECOND = 20;
    /** The first minute: the limit is to be used from the start, not after a long warm-up. */
    private static final int RUN_SECONDS = 60;

    private final TestClock clock = new TestClock();

    @Test
    void nothingIsPacedBeforeA429AndThenATwentiethBelowTheRateLetThrough() {
        UnstatedRate rate = new UnstatedRate(clock);
        Instant start = clock.instant();
        for (int i = 0; i < 100; i++) {
            assertThat(rate.untilStart(0)).isZero();
            rate.started();
            rate.answered(clock.instant());
            clock.advance(Duration.ofMillis(50));
        }
        Instant refusedSent = clock.instant();
        rate.started();
        clock.advance(LATENCY);

        rate.throttled(refusedSent, clock.instant());

        assertThat(rate.perSecond()).as("20 answered a second before the refused call, less a twentieth")
                .isCloseTo(19, within(0.01));
        clock.advance(UnstatedRate.CLIMB.dividedBy(2));
        assertThat(rate.perSecond()).as("most of the way back within half the climb").isGreaterThan(19.8);
        clock.advance(UnstatedRate.CLIMB.dividedBy(2));
        assertThat(rate.perSecond()).isCloseTo(20, within(0.01));
        clock.advance(UnstatedRate.CLIMB);
        assertThat(rate.perSecond()).as("probing beyond it after as long again").isCloseTo(21, within(0.01));
        assertThat(Duration.between(start, clock.instant())).isPositive();
    }

    /**
     * A 429 less than a second after the start (or a pause) reads the calls let through in it as that second's
     * rate: read over the stretch's own length, it would be the pace they were sent at, however far above the
     * limit that is.
     */
    @Test
    void aRefusalWithinTheFirstSecondReadsTheCallsLetThroughNotTheirPace() {
        UnstatedRate rate = new UnstatedRate(clock);
        for (int i = 0; i < 20; i++) {
            rate.started();
            rate.answered(clock.instant());
            clock.advance(Duration.ofMillis(12)); // 80 a second
        }
        Instant refusedSent = clock.instant();
        clock.advance(REFUSAL_LATENCY);

        rate.throttled(refusedSent, clock.instant().plusSeconds(1));

        assertThat(rate.perSecond()).as("20 let through, less a twentieth; not 80").isCloseTo(19, within(0.01));
    }

    /**
     * Calls that started before the refused one and were let through, but came back after its 429 (a refusal is
     * answered at once, a model takes its time), count as let through: the rate is read again as they come.
     */
    @Test
    void callsLetThroughThatAnswerAfterTheRefusalRaiseTheReading() {
        UnstatedRate rate = new UnstatedRate(clock);
        List<Instant> slow = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rate.started();
            if (i < 15) {
                rate.answered(clock.instant());
            } else {
                slow.add(clock.instant());
            }
            clock.advance(Duration.ofMillis(20));
        }
        Instant refusedSent = clock.instant();
        clock.advance(REFUSAL_LATENCY);
        rate.throttled(refusedSent, clock.instant().plusSeconds(1));
        assertThat(rate.perSecond()).as("15 seen let through when the 429 came").isCloseTo(14.25, within(0.01));

        clock.advance(LATENCY);
        slow.forEach(rate::answered);

        assertThat(rate.perSecond()).as("20 let through in the end, less a twentieth").isCloseTo(19, within(0.05));
        rate.answered(clock.instant());
        assertThat(rate.perSecond()).as("a call started after the 429 reads nothing more").isCloseTo(19, within(0.05));
    }

    /**
     * Sixteen workers against a provider that lets 20 calls a second in, in windows of a second, and answers 429
     * beyond them at once, with the time to the window's end in whole seconds: at least 0.9 of the limit, at most
     * 2% answered 429.
     */
    @Test
    void aLimitNobodyStatesIsUsedToNineTenthsWithFewRefusals() throws Exception {
        ModelLimits limits = new ModelLimits(clock, Ticker.SYSTEM);
        record Sent(ModelLimits.Turn turn, Instant at, boolean admitted, Instant windowEnd) {
        }
        List<Sent> inFlight = new ArrayList<>();
        Instant windowOpened = clock.instant();
        int inWindow = 0;
        int admitted = 0;
        int refused = 0;
        Instant end = clock.instant().plusSeconds(RUN_SECONDS);
        while (clock.instant().isBefore(end)) {
            for (Iterator<Sent> it = inFlight.iterator(); it.hasNext(); ) {
                Sent sent = it.next();
                if (sent.at().plus(sent.admitted() ? LATENCY : REFUSAL_LATENCY).isAfter(clock.instant())) {
                    continue;
                }
                it.remove();
                limits.answered(sent.turn(), sent.at(), Map.of(), sent.admitted() ? new Usage(400, 100, 0, 0)
                        : Usage.NONE, sent.admitted());
                if (!sent.admitted()) {
                    // As providers state retry-after: whole seconds, at least one.
                    long toWindowEnd = Duration.between(clock.instant(), sent.windowEnd()).toMillis();
                    limits.pause(Duration.ofSeconds(Math.max(1, (toWindowEnd + 999) / 1000)));
                }
            }
            while (inFlight.size() < WORKERS && limits.paused().isEmpty()) {
                Optional<ModelLimits.Turn> turn = limits.awaitStart(Duration.ZERO, limits.charges(1024, 1600));
                if (turn.isEmpty()) {
                    break;
                }
                if (!clock.instant().isBefore(windowOpened.plusSeconds(1))) {
                    windowOpened = clock.instant();
                    inWindow = 0;
                }
                boolean in = inWindow < PER_SECOND;
                inWindow += in ? 1 : 0;
                admitted += in ? 1 : 0;
                refused += in ? 0 : 1;
                inFlight.add(new Sent(turn.get(), clock.instant(), in, windowOpened.plusSeconds(1)));
            }
            clock.advance(STEP);
        }
        double share = admitted / (PER_SECOND * (double) RUN_SECONDS);
        double refusedShare = refused / (double) (admitted + refused);
        System.out.printf(Locale.ROOT, "no limit stated, 20 a second: %.3f of the limit used, %d calls, %d answered "
                + "429 (%.3f)%n", share, admitted + refused, refused, refusedShare);
        assertThat(share).isGreaterThanOrEqualTo(0.9);
        assertThat(refusedShare).isLessThanOrEqualTo(0.02);
    }
}
