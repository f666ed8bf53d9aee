package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPauseTest {

    @Test
    void doublesUpToTheLastAndStartsOverOnceItWorked() {
        RetryPause pause = new RetryPause(Duration.ofMillis(250), Duration.ofSeconds(2));
        assertThat(pause.next()).isEqualTo(Duration.ofMillis(250));
        assertThat(pause.next()).isEqualTo(Duration.ofMillis(500));
        assertThat(pause.next()).isEqualTo(Duration.ofSeconds(1));
        assertThat(pause.next()).isEqualTo(Duration.ofSeconds(2));
        assertThat(pause.next()).isEqualTo(Duration.ofSeconds(2));
        pause.reset();
        assertThat(pause.next()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void refusesPausesThatMakeNoSense() {
        assertThatThrownBy(() -> new RetryPause(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryPause(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
