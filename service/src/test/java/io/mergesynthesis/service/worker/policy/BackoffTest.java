package io.mergesynthesis.service.worker.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void defaultBaseDoublesFromOneSecondAndCapsAtTen() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1));
        assertThat(IntStream.rangeClosed(1, 7).mapToObj(backoff::after).map(Duration::toSeconds))
                .containsExactly(1L, 2L, 4L, 8L, 10L, 10L, 10L);
        assertThat(backoff.after(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void anyBaseFollowsTheSameFormula() {
        Backoff backoff = new Backoff(Duration.ofMillis(25));
        for (int n = 1; n <= 40; n++) {
            long expected = Math.min(25L * (long) Math.pow(2, Math.min(n - 1, 30)), 250L);
            assertThat(backoff.after(n)).as("after attempt %d", n).isEqualTo(Duration.ofMillis(expected));
        }
    }

    @Test
    void attemptsCountFromOne() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1)).after(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
