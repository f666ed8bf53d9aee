package io.mergesynthesis.bench;

import java.time.Duration;

/**
 * The token-bound scenarios: a stand-in provider that counts a request's and an answer's tokens by their length
 * and limits each model by token buckets refilling over {@link #PERIOD}, the one named here set to bind and the
 * others out of reach; no request limit. Replicas of {@link #WORKERS} workers, answers after {@link #LATENCY},
 * a share of them unsure enough to be escalated ({@link #UNSURE_SHARE}).
 */
enum TokenScenario {
    /** Anthropic's input tokens per period bind (ITPM). */
    INPUT("input", "anthropic", 240_000, 1_000_000, 0),
    /** Anthropic's output tokens per period bind (OTPM), each request holding its max_tokens while it runs. */
    OUTPUT("output", "anthropic", 2_000_000, 25_000, 0),
    /** OpenAI's one token limit binds, charged the input and max_tokens at the start. */
    COMBINED("combined", "openai", 0, 0, 400_000);

    /** How long the buckets take to refill from empty: short, so that a window of a minute sees several. */
    static final Duration PERIOD = Duration.ofSeconds(10);
    static final int WORKERS = 16;
    static final Duration LATENCY = Duration.ofMillis(200);
    static final double UNSURE_SHARE = 0.02;

    final String key;
    final String protocol;
    final long inputLimit;
    final long outputLimit;
    final long combinedLimit;

    TokenScenario(String key, String protocol, long inputLimit, long outputLimit, long combinedLimit) {
        this.key = key;
        this.protocol = protocol;
        this.inputLimit = inputLimit;
        this.outputLimit = outputLimit;
        this.combinedLimit = combinedLimit;
    }

    /** The binding limit's tokens per second. */
    double boundPerSecond() {
        long binding = switch (this) {
            case INPUT -> inputLimit;
            case OUTPUT -> outputLimit;
            case COMBINED -> combinedLimit;
        };
        return binding / (PERIOD.toNanos() / 1e9);
    }

    /** The tokens the stand-in counted against the binding limit, of input {@code in} and output {@code out}. */
    long counted(long in, long out) {
        return switch (this) {
            case INPUT -> in;
            case OUTPUT -> out;
            case COMBINED -> in + out;
        };
    }

    /** {@code input tokens bind (anthropic, 24000/s)}. */
    String describe() {
        return key + " tokens bind (" + protocol + ", " + ReportTable.format(boundPerSecond()) + "/s)";
    }
}
