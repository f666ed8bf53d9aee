package io.mergesynthesis.standin;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stand-in's token limits, one set of buckets per model as the providers keep them: input tokens, output
 * tokens (charged a request's {@code max_tokens} when it starts, the unused part given back when it ends, as
 * Anthropic does) and input and output together (charged the input and {@code max_tokens}, as OpenAI does).
 * Each is enforced only when its limit is set; each protocol states its own ({@link Dialect#tokenHeaders}).
 * A change of the period alone keeps the buckets made before it.
 */
final class TokenLimits {

    /** What one request was let in with, to be settled when it ends. */
    record Charge(String model, long input, long maxTokens) {
    }

    /**
     * A request refused: the limit it found too low, and how long until it would have room ({@code after}).
     *
     * @param kind {@code input_tokens}, {@code output_tokens} or {@code tokens}
     */
    record Refusal(String kind, long limit, Duration after) {
    }

    private record Buckets(TokenBucket input, TokenBucket output, TokenBucket combined) {
    }

    private final Map<String, Buckets> byModel = new ConcurrentHashMap<>();
    private final Behaviour behaviour;

    TokenLimits(Behaviour behaviour) {
        this.behaviour = behaviour;
    }

    /** Whether any token limit is set. */
    boolean enforced() {
        return behaviour.inputTokensPerPeriod() > 0 || behaviour.outputTokensPerPeriod() > 0
                || behaviour.tokensPerPeriod() > 0;
    }

    /**
     * Charges a request against its model's buckets, all or nothing.
     *
     * @return the refusal when a bucket has too little; empty when the request was let in
     */
    synchronized Optional<Refusal> admit(Charge charge) {
        Buckets b = buckets(charge.model());
        if (b.input() != null && b.input().until(charge.input()).compareTo(Duration.ZERO) > 0) {
            return Optional.of(new Refusal("input_tokens", b.input().limit(), b.input().until(charge.input())));
        }
        if (b.output() != null && b.output().until(charge.maxTokens()).compareTo(Duration.ZERO) > 0) {
            return Optional.of(new Refusal("output_tokens", b.output().limit(), b.output().until(charge.maxTokens())));
        }
        long both = charge.input() + charge.maxTokens();
        if (b.combined() != null && b.combined().until(both).compareTo(Duration.ZERO) > 0) {
            return Optional.of(new Refusal("tokens", b.combined().limit(), b.combined().until(both)));
        }
        take(b.input(), charge.input());
        take(b.output(), charge.maxTokens());
        take(b.combined(), both);
        return Optional.empty();
    }

    /** A request let in ended having written {@code output} tokens: what it held beyond that goes back. */
    void settle(Charge charge, long output) {
        Buckets b = buckets(charge.model());
        settle(b.output(), charge.maxTokens(), output);
        settle(b.combined(), charge.maxTokens(), output);
    }

    private static void settle(TokenBucket bucket, long held, long used) {
        if (bucket == null) {
            return;
        }
        if (used <= held) {
            bucket.giveBack(held - used);
        } else {
            bucket.spend(used - held);
        }
    }

    /** The buckets of {@code model} as they stand now. */
    TokenState state(String model) {
        if (!enforced()) {
            return TokenState.NONE;
        }
        Buckets b = buckets(model);
        return new TokenState(bucket(b.input()), bucket(b.output()), bucket(b.combined()));
    }

    private static Optional<TokenState.Bucket> bucket(TokenBucket bucket) {
        return bucket == null ? Optional.empty()
                : Optional.of(new TokenState.Bucket(bucket.limit(), bucket.remaining(), bucket.fullAt()));
    }

    private static void take(TokenBucket bucket, long tokens) {
        if (bucket != null) {
            bucket.take(tokens);
        }
    }

    /**
     * The model's buckets, made when the model is first seen (full, or as partly spent as the behaviour says), and
     * made afresh when a test or the benchmark changes the limits.
     */
    private Buckets buckets(String model) {
        long in = behaviour.inputTokensPerPeriod();
        long out = behaviour.outputTokensPerPeriod();
        long both = behaviour.tokensPerPeriod();
        Duration period = behaviour.tokenPeriod();
        return byModel.compute(model, (m, was) -> was != null && limitOf(was.input()) == in
                && limitOf(was.output()) == out && limitOf(was.combined()) == both ? was
                : new Buckets(bucketOf(in, period, behaviour.inputStartLevel()),
                        bucketOf(out, period, behaviour.outputStartLevel()),
                        bucketOf(both, period, behaviour.tokensStartLevel())));
    }

    private static TokenBucket bucketOf(long limit, Duration period, double startLevel) {
        return limit > 0 ? new TokenBucket(limit, period, startLevel) : null;
    }

    private static long limitOf(TokenBucket bucket) {
        return bucket == null ? 0 : bucket.limit();
    }
}
