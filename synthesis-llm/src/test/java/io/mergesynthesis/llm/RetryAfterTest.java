package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    private static final Duration FALLBACK = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofSeconds(60);

    private static HttpHeaders headers(String... namesAndValues) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return HttpHeaders.of(map, (a, b) -> true);
    }

    private static Duration pause(String... namesAndValues) {
        return RetryAfter.pause(headers(namesAndValues), NOW, FALLBACK, CAP);
    }

    @Test
    void seconds() {
        assertThat(pause("retry-after", "17")).isEqualTo(Duration.ofSeconds(17));
        assertThat(pause("Retry-After", "1.5")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void anHttpDate() {
        assertThat(pause("retry-after", "Fri, 20 Nov 2026 12:00:30 GMT")).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void millisecondsWinOverTheCoarserSeconds() {
        assertThat(pause("retry-after-ms", "1234", "retry-after", "2")).isEqualTo(Duration.ofMillis(1234));
    }

    @Test
    void anExhaustedRequestLimitsResetIsWaitedFor() {
        assertThat(pause(
                "anthropic-ratelimit-requests-remaining", "0",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:08Z",
                "anthropic-ratelimit-input-tokens-remaining", "90000",
                "anthropic-ratelimit-input-tokens-reset", "2026-11-20T12:00:55Z"))
                .isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void anExhaustedTokenLimitsResetIsWhenItsBucketIsFullAndIsNotWaitedFor() {
        assertThat(pause("retry-after", "2",
                "anthropic-ratelimit-output-tokens-remaining", "0",
                "anthropic-ratelimit-output-tokens-reset", "2026-11-20T12:00:54Z",
                "anthropic-ratelimit-tokens-remaining", "0",
                "anthropic-ratelimit-tokens-reset", "2026-11-20T12:00:54Z"))
                .as("the retry-after the 429 came with, not the 54 s until the output bucket is full")
                .isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aRequestLimitsResetCountsWithoutARemainingCount() {
        assertThat(pause(
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:08Z",
                "anthropic-ratelimit-tokens-reset", "2026-11-20T13:00:09+01:00"))
                .isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void theLongestOfRetryAfterAndResetWins() {
        assertThat(pause("retry-after", "3",
                "anthropic-ratelimit-requests-remaining", "0",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:05Z"))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(pause("retry-after", "9",
                "anthropic-ratelimit-requests-remaining", "0",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:05Z"))
                .isEqualTo(Duration.ofSeconds(9));
    }

    @Test
    void nothingReadableFallsBackToTheDefault() {
        assertThat(pause()).isEqualTo(FALLBACK);
        assertThat(pause("retry-after", "soon")).isEqualTo(FALLBACK);
        assertThat(pause("retry-after", "Fri, 20 Nov 2026 11:59:00 GMT")).as("a date in the past").isEqualTo(FALLBACK);
        assertThat(pause("anthropic-ratelimit-requests-reset", "yesterday")).isEqualTo(FALLBACK);
    }

    @Test
    void aHugeWaitIsCapped() {
        assertThat(pause("retry-after", "86400")).isEqualTo(CAP);
    }
}
