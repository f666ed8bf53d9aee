package io.mergesynthesis.service.worker.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.HandClock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AttemptTrackerTest {

    @Test
    void aMillionFailingConflictsStayWithinTheBound() {
        AttemptTracker tracker = new AttemptTracker(10_000, new HandClock());
        for (int i = 0; i < 1_000_000; i++) {
            tracker.recordFailure(new UUID(i, i), 1, 1);
        }
        tracker.cleanUp();
        assertThat(tracker.estimatedSize()).isLessThanOrEqualTo(10_000);
    }

    @Test
    void keepsTheHighestAttemptAndForgetsOnSuccessOrWithTime() {
        HandClock clock = new HandClock();
        AttemptTracker tracker = new AttemptTracker(100, clock);
        UUID id = UUID.randomUUID();
        assertThat(tracker.failuresOf(id, 1)).isZero();
        tracker.recordFailure(id, 2, 2);
        tracker.recordFailure(id, 1, 2);
        assertThat(tracker.failuresOf(id, 3)).isEqualTo(2);
        tracker.forget(id);
        assertThat(tracker.failuresOf(id, 3)).isZero();

        tracker.recordFailure(id, 1, 1);
        clock.advance(AttemptTracker.FORGET_AFTER.minusSeconds(1));
        assertThat(tracker.failuresOf(id, 2)).isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        assertThat(tracker.failuresOf(id, 2)).isZero();
    }

    @Test
    void failuresFromBeforeTheClaimCountWasResetNoLongerCount() {
        AttemptTracker tracker = new AttemptTracker(100, new HandClock());
        UUID id = UUID.randomUUID();
        // Attempts 1 and 2 failed here on the conflict's claims 1 and 2; another replica then marked it at claim 3.
        tracker.recordFailure(id, 1, 1);
        tracker.recordFailure(id, 2, 2);
        assertThat(tracker.failuresOf(id, 3)).isEqualTo(2);

        // Re-queued: the count starts again, and the first claim after it counts 1.
        assertThat(tracker.failuresOf(id, 1)).isZero();
        // The memory is dropped, not just hidden: later claims do not bring it back.
        assertThat(tracker.failuresOf(id, 3)).isZero();

        // What fails after the reset is counted afresh.
        tracker.recordFailure(id, 1, 1);
        assertThat(tracker.failuresOf(id, 2)).isEqualTo(1);
    }

    @Test
    void aFailureRecordedAfterAResetReplacesTheMemoryFromBeforeIt() {
        AttemptTracker tracker = new AttemptTracker(100, new HandClock());
        UUID id = UUID.randomUUID();
        tracker.recordFailure(id, 2, 2);
        // Re-queued elsewhere; this replica's first lease after it fails before anything asked the tracker.
        tracker.recordFailure(id, 1, 1);
        assertThat(tracker.failuresOf(id, 2)).isEqualTo(1);
    }
}
