package io.mergesynthesis.bench;

import java.time.Duration;

/**
 * The token-bound scenarios, as a key shared with someone else meets Anthropic: a stand-in that limits each model
 * by token buckets refilling over a minute, one of them set to one of Anthropic's Sonnet tiers and starting at
 * {@link #START_LEVEL} of its limit (someone else spent the rest), stating what is left rounded to the nearest
 * thousand; the other token limit ten times the tier's and full, out of reach; no request limit. Every answer
 * reports the same input and output tokens, sized so that the binding limit lets through a few calls a second at
 * most: at the fourth tier, calls of the first tier's size would ask more of a shared two-core machine than the
 * limit does. Replicas of {@link #WORKERS} workers, answers after {@link #LATENCY}, no answer escalated (the
 * escalation model has buckets of its own, which these rows do not measure).
 */
enum TokenScenario {
    /** Input tokens bind at the first tier: 30,000 a minute. */
    INPUT_TIER_1("input_tier1", Binding.INPUT, 1, 30_000, 1_500, 150, Duration.ofSeconds(100)),
    /** Output tokens bind at the first tier: 8,000 a minute, each call holding its max_tokens while it runs. */
    OUTPUT_TIER_1("output_tier1", Binding.OUTPUT, 1, 8_000, 1_500, 150, Duration.ofSeconds(100)),
    /** Input tokens bind at the fourth tier: 2,000,000 a minute. */
    INPUT_TIER_4("input_tier4", Binding.INPUT, 4, 2_000_000, 5_000, 1_000, Duration.ofSeconds(30)),
    /** Output tokens bind at the fourth tier: 400,000 a minute. */
    OUTPUT_TIER_4("output_tier4", Binding.OUTPUT, 4, 400_000, 5_000, 1_000, Duration.ofSeconds(30));

    /** Which of Anthropic's token limits binds. */
    enum Binding { INPUT, OUTPUT }

    static final Duration PERIOD = Duration.ofMinutes(1);
    /** How full the binding bucket is at the first call. */
    static final double START_LEVEL = 0.1;
    /** How far out of reach the other token limit is, as a multiple of the tier's. */
    static final int OUT_OF_REACH = 10;
    static final int WORKERS = 16;
    static final Duration LATENCY = Duration.ofMillis(200);
    /**
     * What a call holds of the output limit from a replica's first answer until the model's answers have taught
     * the budget: maxOutputTokens (the first call asks less, ADR 0080).
     */
    static final long FIRST_MAX_TOKENS = 1024;
    /** The answer budget's headroom over what the answers wrote (AnswerBudget). */
    static final double BUDGET_HEADROOM = 1.5;
    /** A --quick run's window: long enough to see the first answers paced, too short for a figure. */
    static final Duration QUICK_WINDOW = Duration.ofSeconds(10);

    final String key;
    final Binding binding;
    final int tier;
    final long limit;
    final long inputPerCall;
    final long outputPerCall;
    /**
     * How long the figures are measured from the first call: the first tier's limits let through a call every
     * few seconds, so that the bucket's last call or two, and the rounding, weigh little only over more.
     */
    final Duration window;

    TokenScenario(String key, Binding binding, int tier, long limit, long inputPerCall, long outputPerCall,
                  Duration window) {
        this.key = key;
        this.binding = binding;
        this.tier = tier;
        this.limit = limit;
        this.inputPerCall = inputPerCall;
        this.outputPerCall = outputPerCall;
        this.window = window;
    }

    long inputLimit() {
        return binding == Binding.INPUT ? limit : limit(Binding.INPUT) * OUT_OF_REACH;
    }

    long outputLimit() {
        return binding == Binding.OUTPUT ? limit : limit(Binding.OUTPUT) * OUT_OF_REACH;
    }

    double inputStartLevel() {
        return binding == Binding.INPUT ? START_LEVEL : 1;
    }

    double outputStartLevel() {
        return binding == Binding.OUTPUT ? START_LEVEL : 1;
    }

    /** The tier's own limit of {@code kind}, a minute, for Sonnet. */
    private long limit(Binding kind) {
        return switch (tier) {
            case 1 -> kind == Binding.INPUT ? 30_000 : 8_000;
            case 4 -> kind == Binding.INPUT ? 2_000_000 : 400_000;
            default -> throw new IllegalStateException("no tier " + tier + " in these rows");
        };
    }

    /** The binding limit's refill, tokens a second. */
    double perSecond() {
        return limit / (PERIOD.toNanos() / 1e9);
    }

    /** What the binding limit allowed over {@code seconds} from the first call: the starting level and the refill. */
    double allowed(double seconds) {
        return limit * START_LEVEL + perSecond() * seconds;
    }

    /** Of the tokens let in, input {@code in} and output {@code out}, those counted against the binding limit. */
    long counted(long in, long out) {
        return binding == Binding.INPUT ? in : out;
    }

    /**
     * What one call holds of the binding limit while it starts: its input, or its {@code max_tokens}, which is the
     * configured budget until the answers have taught a budget of their own, with headroom over what they wrote.
     */
    double oneCallsHold() {
        return binding == Binding.INPUT ? inputPerCall
                : Math.max(FIRST_MAX_TOKENS, Math.ceil(outputPerCall * BUDGET_HEADROOM));
    }

    /** The refill of one call's hold: the longest pause the contract allows while work waits. */
    Duration oneCallsRefill() {
        return Duration.ofNanos((long) Math.ceil(oneCallsHold() / perSecond() * 1e9));
    }

    /** {@code input tokens bind, tier 1 (30,000/min), bucket at 10%}. */
    String describe() {
        return (binding == Binding.INPUT ? "input" : "output") + " tokens bind, tier " + tier + " ("
                + ReportTable.format(limit) + "/min), bucket at " + Math.round(START_LEVEL * 100) + "%";
    }
}
