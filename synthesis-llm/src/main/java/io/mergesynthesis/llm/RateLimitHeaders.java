package io.mergesynthesis.llm;

import java.net.http.HttpHeaders;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The limits a provider states on its answers, each of one {@link Kind}. Each protocol reads its own headers
 * ({@link WireProtocol#statedLimits}); an answer is read in every known protocol's terms, in the order of
 * {@link ProviderType}, and the first that states any limit wins.
 *
 * <p>A provider that says nothing, or something unreadable, states no limit of that kind: a bad header must
 * never fail a call whose answer is fine, nor hide the limits stated readably beside it.
 */
public final class RateLimitHeaders {

    /** What a limit counts. */
    public enum Kind {
        REQUESTS("requests"),
        /** Input tokens not read from a prompt cache (Anthropic counts cache writes, not reads). */
        INPUT_TOKENS("input_tokens"),
        /** Output tokens; Anthropic holds a request's {@code max_tokens} while it runs. */
        OUTPUT_TOKENS("output_tokens"),
        /** Input and output together (OpenAI's one token limit, or Anthropic's when it states no other). */
        TOKENS("tokens");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The {@code kind} label of the pace metric. */
        public String label() {
            return label;
        }
    }

    /**
     * What one answer said about one limit.
     *
     * @param limit     what the period allows, in the kind's units, when stated
     * @param remaining what was left of it when the provider counted this request
     * @param reset     when the period's count starts afresh
     */
    public record Stated(OptionalLong limit, long remaining, Instant reset) {
    }

    private RateLimitHeaders() {
    }

    /**
     * @param sentAt when the request was sent: a reset stated as a time from now is counted from the sending
     *               rather than from the answer, which keeps a slow answer from pushing the reset later than it is
     */
    static Map<Kind, Stated> read(HttpHeaders headers, Instant sentAt) {
        for (ProviderType type : ProviderType.values()) {
            Map<Kind, Stated> stated = type.protocol().statedLimits(headers, sentAt);
            if (!stated.isEmpty()) {
                return stated;
            }
        }
        return Map.of();
    }

    /**
     * One limit from its three headers, when the remaining count and the reset are both readable.
     *
     * @param reset reads the reset header's value, as an instant, or empty when it is not readable
     */
    public static Optional<Stated> stated(HttpHeaders headers, String limit, String remaining, String reset,
                                          Function<String, Optional<Instant>> readReset) {
        OptionalLong left = count(headers, remaining);
        Optional<Instant> at = headers.firstValue(reset).flatMap(readReset);
        if (left.isEmpty() || at.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Stated(count(headers, limit), left.getAsLong(), at.get()));
    }

    /** The named header as a count of zero or more; empty when it is missing or not a count. */
    public static OptionalLong count(HttpHeaders headers, String name) {
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
}
