package io.mergesynthesis.llm.openai;

import io.mergesynthesis.llm.RateLimitHeaders;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.math.BigDecimal;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The limits as OpenAI states them: {@code x-ratelimit-limit-<kind>}, {@code x-ratelimit-remaining-<kind>} and
 * {@code x-ratelimit-reset-<kind>} for {@code requests} and {@code tokens} (input and output together), the reset
 * as the time until it, the way Go prints a duration ({@code 1s}, {@code 250ms}, {@code 6m0s}). Its wait after a
 * 429 is the standard {@code retry-after-ms} and {@code retry-after}.
 */
final class OpenAiHeaders {

    private static final Pattern GO_DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|\u00b5s|ms|s|m|h)");

    private OpenAiHeaders() {
    }

    /** @param sentAt the reset is relative, counted from the sending */
    static Map<Kind, Stated> stated(HttpHeaders headers, Instant sentAt) {
        Map<Kind, Stated> stated = new EnumMap<>(Kind.class);
        of(headers, "requests", sentAt).ifPresent(s -> stated.put(Kind.REQUESTS, s));
        of(headers, "tokens", sentAt).ifPresent(s -> stated.put(Kind.TOKENS, s));
        return stated;
    }

    private static Optional<Stated> of(HttpHeaders headers, String kind, Instant sentAt) {
        return RateLimitHeaders.stated(headers, "x-ratelimit-limit-" + kind, "x-ratelimit-remaining-" + kind,
                "x-ratelimit-reset-" + kind, value -> goDuration(value).map(sentAt::plus));
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
