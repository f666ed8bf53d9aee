package io.mergesynthesis.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class WaitTest {

    @Test
    void returnsOnceTheConditionHolds() {
        AtomicInteger checks = new AtomicInteger();

        Wait.until("the third check", Duration.ofSeconds(5), () -> checks.incrementAndGet() >= 3);

        assertThat(checks).hasValue(3);
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingWhatWasAwaitedAndForHowLong() {
        assertThatThrownBy(() -> Wait.until("the conflict to be merged", Duration.ofMillis(50), () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("the conflict to be merged")
                .hasMessageContaining("PT0.05S");
    }

    @Test
    void returnsTheFirstAcceptedReading() {
        AtomicInteger reads = new AtomicInteger();

        int reading = Wait.forValue("a reading above two", Duration.ofSeconds(5), reads::incrementAndGet, n -> n > 2);

        assertThat(reading).isEqualTo(3);
    }

    @Test
    void aReadingNeverAcceptedFailsWithTheLastOneSeen() {
        assertThatThrownBy(() -> Wait.forValue("the state merged", Duration.ofMillis(50), () -> "failed",
                "merged"::equals))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("the state merged")
                .hasMessageContaining("last seen: failed");
    }

    @Test
    void aConditionCheckedEveryIntervalIsCheckedNoMoreOftenThanThat() {
        AtomicInteger checks = new AtomicInteger();

        boolean held = Wait.holdsWithin("a condition that never holds", Duration.ofMillis(350),
                Duration.ofMillis(100), () -> checks.incrementAndGet() < 0);

        assertThat(held).isFalse();
        // At 0, 100, 200 and 300 ms, and perhaps once more at the timeout; the default interval would check ~35 times.
        assertThat(checks.get()).isBetween(1, 5);
    }

    @Test
    void anOpenLatchReturnsAndAClosedOneFailsWithItsCount() {
        CountDownLatch open = new CountDownLatch(0);
        Wait.forLatch("an open latch", Duration.ofSeconds(1), open);

        assertThatThrownBy(() -> Wait.forLatch("two workers to start", Duration.ofMillis(20), new CountDownLatch(2)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("two workers to start")
                .hasMessageContaining("2 count(s) still to go");
    }

    @Test
    void anUnnamedWaitIsRefused() {
        assertThatThrownBy(() -> Wait.until(null, Duration.ofSeconds(1), () -> true))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("what is awaited");
    }

    @Test
    void holdsWithinSaysWhetherTheConditionCameToHoldInsteadOfFailing() {
        AtomicInteger checks = new AtomicInteger();

        assertThat(Wait.holdsWithin("the second check", Duration.ofSeconds(5), () -> checks.incrementAndGet() >= 2))
                .isTrue();
        assertThat(Wait.holdsWithin("a condition that never holds", Duration.ofMillis(30), () -> false)).isFalse();
    }
}
