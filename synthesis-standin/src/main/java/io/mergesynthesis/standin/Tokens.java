package io.mergesynthesis.standin;

/**
 * The usage one answer reports, split as Anthropic splits it: input neither read from nor written to the
 * prompt cache, output, cache reads, cache writes. Each dialect writes it in its own protocol's fields.
 */
public record Tokens(long input, long output, long cacheRead, long cacheWrite) {
}
