package io.mergesynthesis.llm;

import java.math.BigDecimal;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The request limit a provider states on its answers, in either protocol's headers. Anthropic:
 * {@code anthropic-ratelimit-requests-limit}, {@code -remaining}, and {@code -reset} as an RFC 3339 instant.
 * OpenAI: {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests}, and
 * {@code x-ratelimit-reset-requests} as the time until the reset, the way Go prints a duration ({@code 1s},
 * {@code 250ms}, {@code 6m0s}). Token limits are left alone: pacing counts requests.
 *
 * <p>A provider that says nothing, or something unreadable, states no limit: a bad header must never fail a
 * call whose answer is fine.
 */
final class RateLimitHeaders {

    private static final Pattern GO_DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|\u00b5s|ms|s|m|h)");

    /**
     * What one answer said about the request limit.
     *
     * @param limit     requests per period, when stated
     * @param remaining requests left in the period when the provider counted this one
     * @param reset     when the period's count starts afresh
     */
    record Stated(OptionalLong limit, long remaining, Instant reset) {
    }

    private RateLimitHeaders() {
    }

    /**
     * @param sentAt when the request was sent: OpenAI's reset is relative, and counting it from the sending
     *               rather than from the answer keeps a slow answer from pushing the reset later than it is
     */
    static Optional<Stated> read(HttpHeaders headers, Instant sentAt) {
        return anthropic(headers).or(() -> openAi(headers, sentAt));
    }

    private static Optional<Stated> anthropic(HttpHeaders headers) {
        OptionalLong remaining = count(headers, "anthropic-ratelimit-requests-remaining");
        Optional<Instant> reset = headers.firstValue("anthropic-ratelimit-requests-reset")
                .flatMap(RetryAfter::instant);
        if (remaining.isEmpty() || reset.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Stated(count(headers, "anthropic-ratelimit-requests-limit"), remaining.getAsLong(),
                reset.get()));
    }

    private static Optional<Stated> openAi(HttpHeaders headers, Instant sentAt) {
        OptionalLong remaining = count(headers, "x-ratelimit-remaining-requests");
        Optional<Duration> reset = headers.firstValue("x-ratelimit-reset-requests")
                .flatMap(RateLimitHeaders::goDuration);
        if (remaining.isEmpty() || reset.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Stated(count(headers, "x-ratelimit-limit-requests"), remaining.getAsLong(),
                sentAt.plus(reset.get())));
    }

    private static OptionalLong count(HttpHeaders headers, String name) {
        Optional<String> value = headers.firstValue(name);
        if (value.isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            long n = Long.parseLong(value.get().trim());
            return n < 0 ? OptionalLong.empty() : OptionalLong.of(n);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
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
