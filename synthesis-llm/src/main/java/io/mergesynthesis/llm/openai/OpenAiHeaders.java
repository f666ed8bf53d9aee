package io.mergesynthesis.llm.openai;

import io.mergesynthesis.llm.RateLimitHeaders;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.math.BigDecimal;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The request limit as OpenAI states it: {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests},
 * and {@code x-ratelimit-reset-requests} as the time until the reset, the way Go prints a duration ({@code 1s},
 * {@code 250ms}, {@code 6m0s}). Its wait after a 429 is the standard {@code retry-after-ms} and {@code retry-after}.
 */
final class OpenAiHeaders {

    private static final Pattern GO_DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|\u00b5s|ms|s|m|h)");

    private OpenAiHeaders() {
    }

    /** @param sentAt the reset is relative, counted from the sending */
    static Optional<Stated> stated(HttpHeaders headers, Instant sentAt) {
        OptionalLong remaining = RateLimitHeaders.count(headers, "x-ratelimit-remaining-requests");
        Optional<Duration> reset = headers.firstValue("x-ratelimit-reset-requests")
                .flatMap(OpenAiHeaders::goDuration);
        if (remaining.isEmpty() || reset.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Stated(RateLimitHeaders.count(headers, "x-ratelimit-limit-requests"),
                remaining.getAsLong(), sentAt.plus(reset.get())));
    }

    /** {@code 1h2m3.5s}, {@code 250ms}, {@code 6m0s}: one or more number-and-unit parts, nothing else. */
    static Optional<Duration> goDuration(String value) {
        String v = value.trim();
        Matcher part = GO_DURATION_PART.matcher(v);
        BigDecimal nanos = BigDecimal.ZERO;
        int at = 0;
        while (at < v.length() && part.find(at) && part.start() == at) {
            BigDecimal amount = new BigDecimal(part.group(1));
            nanos = nanos.add(amount.multiply(BigDecimal.valueOf(switch (part.group(2)) {
                case "ns" -> 1L;
                case "us", "\u00b5s" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            })));
            at = part.end();
        }
        if (at == 0 || at != v.length() || nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(nanos.longValue()));
    }
}
