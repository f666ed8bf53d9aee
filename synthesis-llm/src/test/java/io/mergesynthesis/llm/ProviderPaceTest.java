package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ProviderPaceTest {

    private final TestClock clock = new TestClock();
    private final ProviderPace pace = new ProviderPace(clock);

    /** Starts a call now and hands back its number and when it was sent. */
    private record Sent(long call, Instant at) {
    }

    private Sent send() {
        return new Sent(pace.start(), clock.instant());
    }

    private void answer(Sent sent, long limit, long remaining, Duration resetAfterSending) {
        pace.answered(sent.call(), sent.at(),
                Optional.of(new Stated(OptionalLong.of(limit), remaining, sent.at().plus(resetAfterSending))));
    }

    private long waitMillis() {
        return pace.untilNextStart().toMillis();
    }

    @Test
    void nothingIsPacedBeforeTheProviderStatesALimit() {
        for (int i = 0; i < 50; i++) {
            send();
            assertThat(pace.untilNextStart()).isZero();
        }
        assertThat(pace.perSecond()).isZero();
    }

    @Test
    void whatIsLeftIsSpreadOverTheTimeLeft() {
        answer(send(), 20, 19, Duration.ofSeconds(1));

        // 19 left over 1 s, the last of them half a spacing before the reset: 19.5 a second.
        assertThat(pace.perSecond()).isCloseTo(19.5, within(0.01));
        assertThat(waitMillis()).as("1 s / 19.5").isEqualTo(51);

        clock.advance(Duration.ofMillis(500));
        assertThat(pace.untilNextStart()).as("the turn has come").isZero();
        send();
        // 18 left over 0.5 s: the pace rises to use the period up rather than leave requests unused.
        assertThat(pace.perSecond()).isCloseTo(37, within(0.01));
        assertThat(waitMillis()).isEqualTo(27);
    }

    @Test
    void theFirstCallOfANewPeriodIsNotSpacedFromTheLastOfTheOldOne() {
        answer(send(), 20, 1, Duration.ofSeconds(1));
        clock.advance(Duration.ofMillis(990));
        send();
        assertThat(waitMillis()).as("nothing left: the reset and its guard").isEqualTo(20);

        clock.advance(Duration.ofMillis(20));
        assertThat(pace.untilNextStart()).isZero();
    }

    @Test
    void callsStartedSinceTheNewestAnswerCountAgainstWhatIsLeft() {
        Sent first = send();
        send();
        send();
        answer(first, 20, 2, Duration.ofSeconds(1));

        assertThat(pace.perSecond()).as("both left are taken by the calls in flight").isZero();
        assertThat(waitMillis()).as("until the reset and a guard of 1% of the period").isEqualTo(1010);
    }

    @Test
    void nothingLeftWaitsForTheResetThenPacesAtTheLimit() {
        Sent refused = send();
        answer(refused, 20, 0, Duration.ofSeconds(1));
        assertThat(waitMillis()).isEqualTo(1010);

        clock.advance(Duration.ofMillis(1010));
        assertThat(pace.untilNextStart()).as("the new period's first call goes at once").isZero();
        send();
        assertThat(pace.perSecond()).as("the stated limit per the period seen").isCloseTo(20, within(0.01));
        assertThat(waitMillis()).isEqualTo(50);
    }

    @Test
    void aReplicaTakesTheShareOfTheCountItHasBeenSpending() {
        // Two other replicas spend the same limit: between two answers the count goes down by 3 per call of ours.
        Sent first = send();
        answer(first, 30, 29, Duration.ofSeconds(1));
        long remaining = 29;
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(100));
            remaining -= 3;
            answer(send(), 30, remaining, Duration.ofSeconds(1).minusMillis(100L * (i + 1)));
        }

        assertThat(pace.share()).isCloseTo(1 / 3.0, within(0.001));
        // 14 left over 0.5 s, the last half a spacing before the reset, is 29 a second for the three of us: a
        // third of it is ours.
        assertThat(pace.perSecond()).isCloseTo(29 / 3.0, within(0.01));
        assertThat(waitMillis()).isEqualTo(103);

        send();
        assertThat(pace.perSecond()).as("our call since the answer is no longer left")
                .isCloseTo((14 - 1 + 0.5) / 3.0 / 0.5, within(0.01));

        clock.advance(Duration.ofMillis(100));
        assertThat(pace.perSecond()).as("the spread counts from our last start until something new is known")
                .isCloseTo((14 - 1 + 0.5) / 3.0 / 0.5, within(0.01));
        // By now the others have presumably spent their two thirds of 14 over 0.5 s for 0.1 s: 13 - 1.87 left.
        assertThat(pace.untilNextStart()).isPositive();
        clock.advance(Duration.ofMillis(260));
        assertThat(pace.untilNextStart()).isZero();
    }

    @Test
    void callsCountedInAnotherOrderThanSentStillMakeALoneReplicasShareWhole() {
        // Four calls sent at once, counted by the provider in the order 3, 1, 4, 2 and answered 2, 4, 1, 3.
        Sent[] sent = {send(), send(), send(), send()};
        answer(sent[1], 20, 16, Duration.ofSeconds(1));
        answer(sent[3], 20, 17, Duration.ofSeconds(1));
        answer(sent[0], 20, 18, Duration.ofSeconds(1));
        answer(sent[2], 20, 19, Duration.ofSeconds(1));

        assertThat(pace.share()).isEqualTo(1);
        // 16 are left; the two calls sent after the one that said so count as not yet counted: 14, over the second
        // to the reset with the last half a spacing before it.
        assertThat(pace.perSecond()).isCloseTo(14.5, within(0.01));
    }

    @Test
    void noTurnLiesBeyondTheEndOfThePeriod() {
        answer(send(), 20, 10, Duration.ofSeconds(1));
        answer(send(), 20, 8, Duration.ofSeconds(1));
        answer(send(), 20, 1, Duration.ofSeconds(1));
        assertThat(pace.share()).isCloseTo(2 / 9.0, within(0.001));
        assertThat(pace.perSecond()).as("a share of 2/9 of the one left and a half").isCloseTo(1 / 3.0, within(0.001));

        assertThat(waitMillis()).as("not 4.5 s, but the reset and its guard").isEqualTo(1010);
    }

    @Test
    void aChangedLimitStartsAfresh() {
        answer(send(), 200, 190, Duration.ofSeconds(1));
        answer(send(), 20, 5, Duration.ofSeconds(1));
        answer(send(), 20, 4, Duration.ofSeconds(1));

        assertThat(pace.share()).as("185 gone between two calls of ours was the limit changing").isEqualTo(1);
    }

    @Test
    void answersFromAnotherPeriodTeachNoShare() {
        answer(send(), 20, 1, Duration.ofMillis(100));
        clock.advance(Duration.ofMillis(200));
        answer(send(), 20, 15, Duration.ofSeconds(1));

        assertThat(pace.share()).isEqualTo(1);
    }

    @Test
    void anAnswerThatStatesNothingEndsPacing() {
        answer(send(), 20, 0, Duration.ofSeconds(1));
        assertThat(pace.untilNextStart()).isPositive();

        pace.answered(pace.start(), clock.instant(), Optional.empty());

        assertThat(pace.untilNextStart()).isZero();
        assertThat(pace.perSecond()).isZero();
    }

    @Test
    void anOlderAnswerDoesNotOverrideANewerOne() {
        Sent older = send();
        Sent newer = send();
        answer(newer, 20, 0, Duration.ofSeconds(1));
        answer(older, 20, 15, Duration.ofSeconds(1));

        assertThat(waitMillis()).isEqualTo(1010);
    }
}
