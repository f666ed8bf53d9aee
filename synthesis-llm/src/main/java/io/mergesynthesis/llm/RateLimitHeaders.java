package io.mergesynthesis.llm;

import java.net.http.HttpHeaders;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The request limit a provider states on its answers. Each protocol reads its own headers
 * ({@link WireProtocol#statedLimit}); an answer is read in every known protocol's terms, in the order of
 * {@link ProviderType}, and the first that states a limit wins. Token limits are left alone: pacing counts
 * requests.
 *
 * <p>A provider that says nothing, or something unreadable, states no limit: a bad header must never fail a
 * call whose answer is fine.
 */
public final class RateLimitHeaders {

    /**
     * What one answer said about the request limit.
     *
     * @param limit     requests per period, when stated
     * @param remaining requests left in the period when the provider counted this one
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
    static Optional<Stated> read(HttpHeaders headers, Instant sentAt) {
        for (ProviderType type : ProviderType.values()) {
            Optional<Stated> stated = type.protocol().statedLimit(headers, sentAt);
            if (stated.isPresent()) {
                return stated;
            }
        }
        return Optional.empty();
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
