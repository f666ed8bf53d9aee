package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AdaptiveLimitTest {

    @Test
    void startsAtTheMaximumAndHalvesDownToOne() {
        AdaptiveLimit limit = new AdaptiveLimit(16, Ticker.SYSTEM);
        assertThat(limit.limit()).isEqualTo(16);

        limit.onThrottle();
        assertThat(limit.limit()).isEqualTo(8);
        limit.onThrottle();
        limit.onThrottle();
        limit.onThrottle();
        assertThat(limit.limit()).isEqualTo(1);
        limit.onThrottle();
        assertThat(limit.limit()).isEqualTo(1);
    }

    @Test
    void growsByOnePerWindowOfSuccessesUpToTheMaximum() {
        AdaptiveLimit limit = new AdaptiveLimit(6, Ticker.SYSTEM);
        limit.onThrottle(); // 3

        limit.onSuccess();
        limit.onSuccess();
        assertThat(limit.limit()).isEqualTo(3);
        limit.onSuccess();
        assertThat(limit.limit()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            limit.onSuccess();
        }
        assertThat(limit.limit()).isEqualTo(5);
        for (int i = 0; i < 100; i++) {
            limit.onSuccess();
        }
        assertThat(limit.limit()).isEqualTo(6);
    }

    @Test
    void aThrottleRestartsTheSuccessWindow() {
        AdaptiveLimit limit = new AdaptiveLimit(8, Ticker.SYSTEM);
        limit.onThrottle(); // 4
        limit.onSuccess();
        limit.onSuccess();
        limit.onSuccess();
        limit.onThrottle(); // 2

        limit.onSuccess();
        assertThat(limit.limit()).isEqualTo(2);
        limit.onSuccess();
        assertThat(limit.limit()).isEqualTo(3);
    }

    @Test
    void aFullLimitTimesOutThenAReleaseLetsTheWaiterIn() throws Exception {
        AdaptiveLimit limit = new AdaptiveLimit(1, Ticker.SYSTEM);
        assertThat(limit.acquire(Duration.ZERO)).isTrue();
        assertThat(limit.acquire(Duration.ofMillis(20))).isFalse();

        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                return limit.acquire(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                return false;
            }
        });
        waiting.await();
        limit.release();

        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(limit.inFlight()).isEqualTo(1);
    }

    @Test
    void aWaiterIsInterruptible() {
        AdaptiveLimit limit = new AdaptiveLimit(1, Ticker.SYSTEM);
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> {
            limit.acquire(Duration.ZERO);
            limit.acquire(Duration.ofSeconds(5));
        }).isInstanceOf(InterruptedException.class);
    }
}
