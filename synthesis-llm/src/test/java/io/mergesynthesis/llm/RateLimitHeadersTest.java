package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    private static final Instant SENT = Instant.parse("2026-11-20T12:00:00Z");

    private static HttpHeaders headers(String... namesAndValues) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return HttpHeaders.of(map, (a, b) -> true);
    }

    /** The request limit stated. */
    private static Optional<Stated> read(String... namesAndValues) {
        return Optional.ofNullable(all(namesAndValues).get(Kind.REQUESTS));
    }

    private static Map<Kind, Stated> all(String... namesAndValues) {
        return RateLimitHeaders.read(headers(namesAndValues), SENT);
    }

    private static final Instant AT_ONE = Instant.parse("2026-11-20T12:00:01Z");

    @Test
    void anthropicStatesAnInstant() {
        // As the Messages API sends them, token limits beside the request limit.
        Optional<Stated> stated = read(
                "anthropic-ratelimit-requests-limit", "50",
                "anthropic-ratelimit-requests-remaining", "49",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:01Z",
                "anthropic-ratelimit-tokens-limit", "40000",
                "anthropic-ratelimit-tokens-remaining", "39000",
                "anthropic-ratelimit-tokens-reset", "2026-11-20T12:00:02Z",
                "anthropic-ratelimit-input-tokens-reset", "2026-11-20T12:00:02.5+00:00");

        assertThat(stated).contains(new Stated(OptionalLong.of(50), 49, Instant.parse("2026-11-20T12:00:01Z")));
    }

    @Test
    void openAiStatesTheTimeUntilTheResetCountedFromTheSending() {
        Optional<Stated> stated = read(
                "x-ratelimit-limit-requests", "60",
                "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-reset-requests", "1s",
                "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-tokens", "6m0s");

        assertThat(stated).contains(new Stated(OptionalLong.of(60), 59, SENT.plusSeconds(1)));
    }

    @Test
    void theLimitItselfMayBeMissing() {
        assertThat(read("x-ratelimit-remaining-requests", "3", "x-ratelimit-reset-requests", "20ms"))
                .contains(new Stated(OptionalLong.empty(), 3, SENT.plusMillis(20)));
        assertThat(read("anthropic-ratelimit-requests-limit", "many",
                "anthropic-ratelimit-requests-remaining", "0",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:01Z"))
                .contains(new Stated(OptionalLong.empty(), 0, Instant.parse("2026-11-20T12:00:01Z")));
    }

    @Test
    void nothingOrNothingReadableStatesNoLimit() {
        assertThat(read()).isEmpty();
        assertThat(read("retry-after", "1")).isEmpty();
        assertThat(read("anthropic-ratelimit-requests-remaining", "4")).as("no reset").isEmpty();
        assertThat(read("anthropic-ratelimit-requests-remaining", "4",
                "anthropic-ratelimit-requests-reset", "in a minute")).isEmpty();
        assertThat(read("anthropic-ratelimit-requests-remaining", "-1",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:01Z")).isEmpty();
        assertThat(read("x-ratelimit-remaining-requests", "four", "x-ratelimit-reset-requests", "1s")).isEmpty();
        for (String bad : List.of("", "s", "1", "1x", "1s later", "-1s", "1.s", "99999999999999999999h")) {
            assertThat(read("x-ratelimit-remaining-requests", "4", "x-ratelimit-reset-requests", bad))
                    .as("reset '%s'", bad).isEmpty();
        }
    }

    @Test
    void anthropicStatesInputAndOutputTokensApart() {
        Map<Kind, Stated> stated = all(
                "anthropic-ratelimit-requests-limit", "50",
                "anthropic-ratelimit-requests-remaining", "49",
                "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:01Z",
                "anthropic-ratelimit-input-tokens-limit", "30000",
                "anthropic-ratelimit-input-tokens-remaining", "28000",
                "anthropic-ratelimit-input-tokens-reset", "2026-11-20T12:00:04Z",
                "anthropic-ratelimit-output-tokens-limit", "8000",
                "anthropic-ratelimit-output-tokens-remaining", "6976",
                "anthropic-ratelimit-output-tokens-reset", "2026-11-20T12:00:07.5+00:00",
                "anthropic-ratelimit-tokens-limit", "8000",
                "anthropic-ratelimit-tokens-remaining", "6976",
                "anthropic-ratelimit-tokens-reset", "2026-11-20T12:00:07.5Z");

        assertThat(stated).containsOnlyKeys(Kind.REQUESTS, Kind.INPUT_TOKENS, Kind.OUTPUT_TOKENS);
        assertThat(stated.get(Kind.INPUT_TOKENS))
                .isEqualTo(new Stated(OptionalLong.of(30000), 28000, SENT.plusSeconds(4)));
        assertThat(stated.get(Kind.OUTPUT_TOKENS))
                .isEqualTo(new Stated(OptionalLong.of(8000), 6976, SENT.plusMillis(7500)));
    }

    @Test
    void anthropicsTokensLimitIsPacedOnlyWhenNoOtherTokenLimitIsStated() {
        Map<Kind, Stated> stated = all(
                "anthropic-ratelimit-tokens-limit", "40000",
                "anthropic-ratelimit-tokens-remaining", "39000",
                "anthropic-ratelimit-tokens-reset", "2026-11-20T12:00:02Z");

        assertThat(stated).containsOnlyKeys(Kind.TOKENS);
        assertThat(stated.get(Kind.TOKENS)).isEqualTo(new Stated(OptionalLong.of(40000), 39000, SENT.plusSeconds(2)));
    }

    @Test
    void openAiStatesOneTokenLimitResetAsADuration() {
        Map<Kind, Stated> stated = all(
                "x-ratelimit-limit-requests", "60",
                "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-reset-requests", "1s",
                "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-tokens", "6m0s");

        assertThat(stated).containsOnlyKeys(Kind.REQUESTS, Kind.TOKENS);
        assertThat(stated.get(Kind.TOKENS))
                .isEqualTo(new Stated(OptionalLong.of(150000), 149984, SENT.plus(Duration.ofMinutes(6))));
        assertThat(all("x-ratelimit-remaining-tokens", "10", "x-ratelimit-reset-tokens", "250ms").get(Kind.TOKENS))
                .isEqualTo(new Stated(OptionalLong.empty(), 10, SENT.plusMillis(250)));
    }

    @Test
    void aMalformedTokenHeaderIsIgnoredAndLeavesTheOtherLimitsStated() {
        String[] badCounts = {"", "many", "-5", "1.5", "99999999999999999999"};
        String[] badInstants = {"", "soon", "2026-11-20", "2026-11-20T12:00:01", "1s"};
        String[] badDurations = {"", "s", "1", "1x", "-1s", "6m0", "1.s"};
        for (String bad : badCounts) {
            Map<Kind, Stated> stated = all(
                    "anthropic-ratelimit-requests-remaining", "3",
                    "anthropic-ratelimit-requests-reset", "2026-11-20T12:00:01Z",
                    "anthropic-ratelimit-input-tokens-remaining", bad,
                    "anthropic-ratelimit-input-tokens-reset", "2026-11-20T12:00:01Z",
                    "anthropic-ratelimit-output-tokens-limit", bad,
                    "anthropic-ratelimit-output-tokens-remaining", "700",
                    "anthropic-ratelimit-output-tokens-reset", "2026-11-20T12:00:01Z");
            assertThat(stated).as("count '%s'", bad).containsOnlyKeys(Kind.REQUESTS, Kind.OUTPUT_TOKENS);
            assertThat(stated.get(Kind.OUTPUT_TOKENS)).as("a bad limit leaves the rest")
                    .isEqualTo(new Stated(OptionalLong.empty(), 700, AT_ONE));
        }
        for (String bad : badInstants) {
            assertThat(all("anthropic-ratelimit-output-tokens-remaining", "700",
                    "anthropic-ratelimit-output-tokens-reset", bad,
                    "anthropic-ratelimit-input-tokens-remaining", "900",
                    "anthropic-ratelimit-input-tokens-reset", "2026-11-20T12:00:01Z"))
                    .as("reset '%s'", bad).containsOnlyKeys(Kind.INPUT_TOKENS);
        }
        for (String bad : badDurations) {
            assertThat(all("x-ratelimit-remaining-requests", "4", "x-ratelimit-reset-requests", "1s",
                    "x-ratelimit-remaining-tokens", "4000", "x-ratelimit-reset-tokens", bad))
                    .as("reset '%s'", bad).containsOnlyKeys(Kind.REQUESTS);
        }
    }
}
