package io.mergesynthesis.llm;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How long a provider asked us to wait, read from its headers: {@code retry-after-ms}, {@code retry-after}
 * (seconds or an HTTP date) and Anthropic's {@code anthropic-ratelimit-<limit>-reset} instants. When several
 * say something, the longest wait wins: waiting less than any one of them would only earn another 429.
 */
final class RetryAfter {

    private static final String ANTHROPIC_PREFIX = "anthropic-ratelimit-";
    private static final String RESET = "-reset";
    private static final String REMAINING = "-remaining";

    private RetryAfter() {
    }

    /** The wait the headers ask for, if any says anything readable and in the future. */
    static Optional<Duration> requested(HttpHeaders headers, Instant now) {
        Optional<Duration> direct = headers.firstValue("retry-after-ms").flatMap(RetryAfter::millis)
                .or(() -> headers.firstValue("retry-after").flatMap(value -> secondsOrDate(value, now)));
        Optional<Duration> reset = anthropicReset(headers.map(), now);
        return longest(direct, reset).filter(d -> !d.isNegative() && !d.isZero());
    }

    /** The requested wait, or {@code fallback} when none was given, never more than {@code cap}. */
    static Duration pause(HttpHeaders headers, Instant now, Duration fallback, Duration cap) {
        Duration wait = requested(headers, now).orElse(fallback);
        return wait.compareTo(cap) > 0 ? cap : wait;
    }

    private static Optional<Duration> millis(String value) {
        try {
            return Optional.of(Duration.ofNanos((long) (Double.parseDouble(value.trim()) * 1_000_000)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> secondsOrDate(String value, Instant now) {
        String v = value.trim();
        try {
            return Optional.of(Duration.ofMillis((long) (Double.parseDouble(v) * 1000)));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return Optional.of(Duration.between(now, at));
            } catch (DateTimeParseException notDate) {
                return Optional.empty();
            }
        }
    }

    /**
     * The latest reset among the limits that are used up. A limit with requests left does not hold us back,
     * so its reset only counts when no header says which limit is exhausted.
     */
    private static Optional<Duration> anthropicReset(Map<String, List<String>> headers, Instant now) {
        Optional<Instant> exhausted = Optional.empty();
        Optional<Instant> any = Optional.empty();
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (!name.startsWith(ANTHROPIC_PREFIX) || !name.endsWith(RESET) || header.getValue().isEmpty()) {
                continue;
            }
            Optional<Instant> at = instant(header.getValue().get(0));
            any = later(any, at);
            String limit = name.substring(0, name.length() - RESET.length());
            if (firstValue(headers, limit + REMAINING).map(r -> r.trim().equals("0")).orElse(false)) {
                exhausted = later(exhausted, at);
            }
        }
        Optional<Instant> relevant = exhausted.isPresent() ? exhausted : any;
        return relevant.map(at -> Duration.between(now, at));
    }

    private static Optional<String> firstValue(Map<String, List<String>> headers, String lowerName) {
        return headers.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(lowerName) && !e.getValue().isEmpty())
                .map(e -> e.getValue().get(0))
                .findFirst();
    }

    /** An RFC 3339 instant, as Anthropic writes its resets; empty when it is not one. */
    static Optional<Instant> instant(String value) {
        try {
            return Optional.of(java.time.OffsetDateTime.parse(value.trim()).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> later(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return Optional.of(a.get().isAfter(b.get()) ? a.get() : b.get());
    }

    private static Optional<Duration> longest(Optional<Duration> a, Optional<Duration> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return Optional.of(a.get().compareTo(b.get()) >= 0 ? a.get() : b.get());
    }
}
