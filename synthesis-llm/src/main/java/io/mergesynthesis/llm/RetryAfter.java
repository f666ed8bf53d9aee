package io.mergesynthesis.llm;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * How long a provider asked us to wait, read from its headers: {@code retry-after-ms} and {@code retry-after}
 * (seconds or an HTTP date), which any provider may send, and whatever a protocol's own headers ask for
 * ({@link WireProtocol#requestedWait}, such as Anthropic's reset instants). When several say something, the
 * longest wait wins: waiting less than any one of them would only earn another 429.
 */
final class RetryAfter {

    private RetryAfter() {
    }

    /** The wait the headers ask for, if any says anything readable and in the future. */
    static Optional<Duration> requested(HttpHeaders headers, Instant now) {
        Optional<Duration> wait = headers.firstValue("retry-after-ms").flatMap(RetryAfter::millis)
                .or(() -> headers.firstValue("retry-after").flatMap(value -> secondsOrDate(value, now)));
        for (ProviderType type : ProviderType.values()) {
            wait = longest(wait, type.protocol().requestedWait(headers, now));
        }
        return wait.filter(d -> !d.isNegative() && !d.isZero());
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
