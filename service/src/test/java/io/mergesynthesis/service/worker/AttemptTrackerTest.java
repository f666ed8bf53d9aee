package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AttemptTrackerTest {

    /** A clock the test moves by hand. */
    static final class HandClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-20T12:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aMillionFailingConflictsStayWithinTheBound() {
        AttemptTracker tracker = new AttemptTracker(10_000, new HandClock());
        for (int i = 0; i < 1_000_000; i++) {
            tracker.recordFailure(new UUID(i, i), 1);
        }
        tracker.cleanUp();
        assertThat(tracker.estimatedSize()).isLessThanOrEqualTo(10_000);
    }

    @Test
    void keepsTheHighestAttemptAndForgetsOnSuccessOrWithTime() {
        HandClock clock = new HandClock();
        AttemptTracker tracker = new AttemptTracker(100, clock);
        UUID id = UUID.randomUUID();
        assertThat(tracker.failuresOf(id)).isZero();
        tracker.recordFailure(id, 2);
        tracker.recordFailure(id, 1);
        assertThat(tracker.failuresOf(id)).isEqualTo(2);
        tracker.forget(id);
        assertThat(tracker.failuresOf(id)).isZero();

        tracker.recordFailure(id, 1);
        clock.advance(AttemptTracker.FORGET_AFTER.minusSeconds(1));
        assertThat(tracker.failuresOf(id)).isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        assertThat(tracker.failuresOf(id)).isZero();
    }
}
