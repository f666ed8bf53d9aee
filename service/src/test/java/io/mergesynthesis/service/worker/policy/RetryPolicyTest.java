package io.mergesynthesis.service.worker.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.worker.FailureReason;
import java.net.ConnectException;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The product's retry policy on its own: the waits, the limit, and which failures count. */
class RetryPolicyTest {

    private final RetryPolicy policy = RetryPolicy.cappedExponential(Duration.ofSeconds(1), 3);

    @Test
    void waitsDoubleFromTheBaseUpToTenTimesIt() {
        assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
        assertThat(policy.delayAfter(50)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theMarkerComesWithTheLastAllowedAttempt() {
        assertThat(policy.exhausted(2)).isFalse();
        assertThat(policy.exhausted(3)).isTrue();
        assertThat(policy.exhausted(4)).isTrue();
        assertThatThrownBy(() -> RetryPolicy.cappedExponential(Duration.ofSeconds(1), 0))
                .hasMessageContaining("synthesis.maxAttempts must be at least 1");
    }

    @Test
    void aDatabaseStepCutShortByTheDatabaseDoesNotCountAnythingElseDoes() {
        Throwable outage = new RuntimeException(new SQLException("connection refused", "08001",
                new ConnectException("refused")));
        assertThat(policy.counts(FailureReason.LOAD_ROW, outage)).isFalse();
        assertThat(policy.counts(FailureReason.WRITE_MERGE, outage)).isFalse();
        assertThat(policy.counts(FailureReason.ROUTER_RESOLVE, outage)).isFalse();
        // The same outage text from the synthesizer's own step is the synthesizer's failure, and counts.
        assertThat(policy.counts(FailureReason.SYNTHESIZER, outage)).isTrue();
        assertThat(policy.counts(FailureReason.LOAD_ROW, new IllegalStateException("a row that cannot be read")))
                .isTrue();
    }
}
