package io.mergesynthesis.llm.anthropic;

import io.mergesynthesis.llm.RateLimitHeaders;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What Anthropic's headers say about its limits: {@code anthropic-ratelimit-<kind>-limit}, {@code -remaining} and
 * {@code -reset} (an RFC 3339 instant) for requests, input tokens, output tokens and tokens, the last being the
 * most restrictive of the token limits. After a 429 the reset of a request limit that ran out says how long to
 * wait; a token limit's reset does not (see {@link #resetWait}).
 */
final class AnthropicHeaders {

    private static final String PREFIX = "anthropic-ratelimit-";
    private static final String RESET = "-reset";
    private static final String REMAINING = "-remaining";

    private AnthropicHeaders() {
    }

    /**
     * Every limit stated readably. {@code tokens-*} is only the tighter of the input and output limits, not a
     * budget of its own, so it is paced only when neither of those is stated.
     */
    static Map<Kind, Stated> stated(HttpHeaders headers) {
        Map<Kind, Stated> stated = new EnumMap<>(Kind.class);
        of(headers, "requests").ifPresent(s -> stated.put(Kind.REQUESTS, s));
        of(headers, "input-tokens").ifPresent(s -> stated.put(Kind.INPUT_TOKENS, s));
        of(headers, "output-tokens").ifPresent(s -> stated.put(Kind.OUTPUT_TOKENS, s));
        if (!stated.containsKey(Kind.INPUT_TOKENS) && !stated.containsKey(Kind.OUTPUT_TOKENS)) {
            of(headers, "tokens").ifPresent(s -> stated.put(Kind.TOKENS, s));
        }
        return stated;
    }

    private static Optional<Stated> of(HttpHeaders headers, String kind) {
        return RateLimitHeaders.stated(headers, PREFIX + kind + "-limit", PREFIX + kind + REMAINING,
                PREFIX + kind + RESET, AnthropicHeaders::instant);
    }

    /**
     * The wait until the latest reset among the request limits that are used up. A limit with requests left does
     * not hold us back, so its reset only counts when no header says which limit is exhausted. A token limit's
     * reset is the instant its bucket is full again, not when it has room for a call, which comes with the
     * refill of what the call lacks: waiting for it would idle the key for up to a minute, so only the provider's
     * own {@code retry-after} says how long a token limit's 429 asks to wait.
     */
    static Optional<Duration> resetWait(HttpHeaders httpHeaders, Instant now) {
        Map<String, List<String>> headers = httpHeaders.map();
        Optional<Instant> exhausted = Optional.empty();
        Optional<Instant> any = Optional.empty();
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (!name.equals(PREFIX + "requests" + RESET) || header.getValue().isEmpty()) {
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
            return Optional.of(OffsetDateTime.parse(value.trim()).toInstant());
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
}
