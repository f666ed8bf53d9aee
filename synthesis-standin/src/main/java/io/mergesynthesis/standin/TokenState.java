package io.mergesynthesis.standin;

import java.time.Instant;
import java.util.Optional;

/**
 * The stand-in's token buckets for one model as they stand after a request, for its dialect to state in its
 * protocol's headers; a limit that is not set is empty.
 */
public record TokenState(Optional<Bucket> input, Optional<Bucket> output, Optional<Bucket> combined) {

    static final TokenState NONE = new TokenState(Optional.empty(), Optional.empty(), Optional.empty());

    /** The same buckets, what is left in each rounded to the nearest thousand, as Anthropic states it. */
    TokenState roundedToThousands() {
        return new TokenState(input.map(Bucket::rounded), output.map(Bucket::rounded), combined.map(Bucket::rounded));
    }

    /** One bucket: its limit, the whole tokens in it, and when it will be full again. */
    public record Bucket(long limit, long remaining, Instant fullAt) {

        Bucket rounded() {
            return new Bucket(limit, Math.round(remaining / 1000.0) * 1000, fullAt);
        }
    }
}
