package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How the stand-in provider answers. Every setting can be changed while it runs (tests flip them between
 * calls); each is read once per request, so a request sees either the old value or the new one.
 */
public final class Behaviour {

    private volatile Duration latency = Duration.ZERO;
    private volatile Duration batchDelay = Duration.ZERO;
    private volatile Duration batchCancelDelay = Duration.ZERO;
    private volatile Duration batchCreateDelay = Duration.ZERO;
    private volatile Duration batchRetrieveDelay = Duration.ZERO;
    private volatile int batchErrorEvery;
    private volatile double batchErrorRate;
    private volatile Long batchResultSeed;
    private final java.util.concurrent.atomic.AtomicInteger batchCallsRefused = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int rateLimitPerSecond;
    private volatile boolean statesRateLimit = true;
    private volatile double failureRate;
    private volatile Failure failureKind = Failure.SERVER_ERROR;
    private volatile double confidence = 0.9;
    private volatile String expectedKey;
    private volatile long inputTokens = 420;
    private volatile long outputTokens = 180;
    private volatile long cacheReadTokens;
    private volatile long cacheWriteTokens;
    private volatile double unsureShare;
    private volatile long inputTokensPerPeriod;
    private volatile long outputTokensPerPeriod;
    private volatile long tokensPerPeriod;
    private volatile Duration tokenPeriod = Duration.ofMinutes(1);
    private volatile Duration ratePeriod = RequestWindow.DEFAULT_LENGTH;
    private volatile double inputStartLevel = 1;
    private volatile double outputStartLevel = 1;
    private volatile double tokensStartLevel = 1;
    private volatile boolean roundsRemaining;
    private volatile UnsafeMerge unsafe;
    private volatile boolean rightWhenToldWhy;
    private volatile boolean countTokens;
    private volatile long cacheMinimumTokens = 1024;
    private volatile boolean cutAtMaxTokens;
    private final Map<String, Double> confidenceByModel = new ConcurrentHashMap<>();
    private final Queue<Failure> nextFailures = new ConcurrentLinkedQueue<>();
    private final Queue<Scripted> script = new ConcurrentLinkedQueue<>();

    /**
     * One answer given instead of the stand-in's own, in order of scripting. Either raw (status, headers and
     * body sent exactly as given) or a model answer text that the stand-in wraps in the form the request asked
     * for, with the usual usage figures and headers.
     */
    public record Scripted(Integer status, Map<String, String> headers, String body, String answerText) {

        public static Scripted raw(int status, Map<String, String> headers, String body) {
            return new Scripted(status, Map.copyOf(headers), Objects.requireNonNull(body), null);
        }

        public static Scripted answer(String answerText) {
            return new Scripted(null, Map.of(), null, Objects.requireNonNull(answerText));
        }

        boolean isRaw() {
            return answerText == null;
        }
    }

    public Duration latency() {
        return latency;
    }

    /** How long each answer takes; other requests are served meanwhile. */
    public Behaviour latency(Duration latency) {
        this.latency = Objects.requireNonNull(latency);
        return this;
    }

    public Duration batchDelay() {
        return batchDelay;
    }

    /**
     * How long a message batch stays in progress before it ends by itself; zero (the default) keeps it in
     * progress until a test ends it ({@link StandInProvider#endBatch}).
     */
    public Behaviour batchDelay(Duration batchDelay) {
        this.batchDelay = Objects.requireNonNull(batchDelay);
        return this;
    }

    public Duration batchCancelDelay() {
        return batchCancelDelay;
    }

    /**
     * How long a batch asked to cancel stays cancelling before it ends, its requests not yet answered canceled;
     * zero (the default) keeps it cancelling until a test ends it ({@link StandInProvider#endBatch}).
     */
    public Behaviour batchCancelDelay(Duration delay) {
        this.batchCancelDelay = Objects.requireNonNull(delay);
        return this;
    }

    public Duration batchCreateDelay() {
        return batchCreateDelay;
    }

    /**
     * How long the answer to a batch's create is held back. The batch is made at once; only its answer waits, so a
     * client that gives up (or dies) meanwhile has made a batch it never learnt the id of. Zero by default.
     */
    public Behaviour batchCreateDelay(Duration delay) {
        this.batchCreateDelay = Objects.requireNonNull(delay);
        return this;
    }

    public Duration batchRetrieveDelay() {
        return batchRetrieveDelay;
    }

    /**
     * How long the answer to a look at one batch (its retrieve, in either protocol) is held back: a client polling
     * the batch is mid-poll for that long. Zero by default.
     */
    public Behaviour batchRetrieveDelay(Duration delay) {
        this.batchRetrieveDelay = Objects.requireNonNull(delay);
        return this;
    }

    public int batchErrorEvery() {
        return batchErrorEvery;
    }

    /** Every {@code n}th request of each batch (the nth, the 2nth, ...) is errored, not billed; 0 for none. */
    public Behaviour batchErrorEvery(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("every n-th request: n is 0 (none) or more, not " + n);
        }
        this.batchErrorEvery = n;
        return this;
    }

    public double batchErrorRate() {
        return batchErrorRate;
    }

    /** The share of a batch's requests, at random, that are errored, not billed; 0 (the default) for none. */
    public Behaviour batchErrorRate(double rate) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("a share from 0 to 1, not " + rate);
        }
        this.batchErrorRate = rate;
        return this;
    }

    public Long batchResultSeed() {
        return batchResultSeed;
    }

    /**
     * A batch's results written shuffled with this seed; null (the default) writes them in the reverse of the
     * requests' order. Either way not the order they were sent in, so a reader must key on custom_id.
     */
    public Behaviour batchResultSeed(Long seed) {
        this.batchResultSeed = seed;
        return this;
    }

    /** The next {@code n} calls to either protocol's batch endpoints are answered 429 with a retry-after of 7 s. */
    public Behaviour refuseNextBatchCalls(int n) {
        batchCallsRefused.addAndGet(n);
        return this;
    }

    /** Whether this batch call is one to refuse. */
    boolean takeBatchRefusal() {
        return batchCallsRefused.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    public int rateLimitPerSecond() {
        return rateLimitPerSecond;
    }

    /**
     * Requests per {@link #ratePeriod} (a second by default) answered before the rest of that window gets 429s; 0
     * for no limit.
     */
    public Behaviour rateLimitPerSecond(int limit) {
        this.rateLimitPerSecond = limit;
        return this;
    }

    public Duration ratePeriod() {
        return ratePeriod;
    }

    /** The window of {@link #rateLimitPerSecond}: a second by default, a minute for limits stated per minute. */
    public Behaviour ratePeriod(Duration period) {
        if (period.isZero() || period.isNegative()) {
            throw new IllegalArgumentException("a rate-limit period must be positive, not " + period);
        }
        this.ratePeriod = period;
        return this;
    }

    public boolean statesRateLimit() {
        return statesRateLimit;
    }

    /**
     * Whether every answer states the rate limit in the protocol's headers (limit, remaining, reset), as real
     * providers do; on by default. Off, only the 429s say anything, so a client cannot pace itself and meets them.
     */
    public Behaviour statesRateLimit(boolean states) {
        this.statesRateLimit = states;
        return this;
    }

    public double failureRate() {
        return failureRate;
    }

    /** The share of requests, at random, that fail the way {@link #failureKind(Failure)} says. */
    public Behaviour failureRate(double rate) {
        this.failureRate = rate;
        return this;
    }

    public Failure failureKind() {
        return failureKind;
    }

    public Behaviour failureKind(Failure kind) {
        this.failureKind = Objects.requireNonNull(kind);
        return this;
    }

    /** The next {@code n} requests fail this way, before any other rule is looked at. */
    public Behaviour failNext(int n, Failure kind) {
        for (int i = 0; i < n; i++) {
            nextFailures.add(kind);
        }
        return this;
    }

    Optional<Failure> takeNextFailure() {
        return Optional.ofNullable(nextFailures.poll());
    }

    /** The confidence the stand-in's own answers carry, unless one is set for the request's model. */
    public Behaviour confidence(double confidence) {
        this.confidence = confidence;
        return this;
    }

    public Behaviour confidenceFor(String model, double confidence) {
        confidenceByModel.put(model, confidence);
        return this;
    }

    public double confidenceFor(String model) {
        return confidenceByModel.getOrDefault(model == null ? "" : model, confidence);
    }

    /**
     * The share of the stand-in's own answers, at random, that come with a confidence of {@link #UNSURE}, low
     * enough to be escalated at the default {@code llm.escalateBelow}, whatever model they are for.
     */
    public Behaviour unsureShare(double share) {
        this.unsureShare = share;
        return this;
    }

    /** The confidence of one answer for {@code model}: {@link #confidenceFor}, unless this one is unsure. */
    double answerConfidence(String model) {
        double share = unsureShare;
        return share > 0 && ThreadLocalRandom.current().nextDouble() < share ? UNSURE : confidenceFor(model);
    }

    /** The confidence of an answer {@link #unsureShare} makes unsure. */
    public static final double UNSURE = 0.5;

    public String expectedKey() {
        return expectedKey;
    }

    /** Requests with another key get 401; null accepts any key. */
    public Behaviour expectedKey(String key) {
        this.expectedKey = key;
        return this;
    }

    /** The usage figures every answer reports (Anthropic's split; OpenAI's prompt tokens include cache reads). */
    public Behaviour usage(long input, long output, long cacheRead, long cacheWrite) {
        this.inputTokens = input;
        this.outputTokens = output;
        this.cacheReadTokens = cacheRead;
        this.cacheWriteTokens = cacheWrite;
        return this;
    }

    public long inputTokens() {
        return inputTokens;
    }

    public long outputTokens() {
        return outputTokens;
    }

    /**
     * Token limits per model, each a bucket of this many tokens refilling over {@link #tokenPeriod} (a minute by
     * default); 0 for none. {@code input} and {@code output} are Anthropic's ITPM and OTPM, {@code combined}
     * OpenAI's TPM. A request the buckets cannot hold is answered 429.
     */
    public Behaviour tokenLimits(long input, long output, long combined) {
        this.inputTokensPerPeriod = input;
        this.outputTokensPerPeriod = output;
        this.tokensPerPeriod = combined;
        return this;
    }

    public long inputTokensPerPeriod() {
        return inputTokensPerPeriod;
    }

    public long outputTokensPerPeriod() {
        return outputTokensPerPeriod;
    }

    public long tokensPerPeriod() {
        return tokensPerPeriod;
    }

    public Duration tokenPeriod() {
        return tokenPeriod;
    }

    /** How long the token buckets take to refill from empty; set it before the limits. */
    public Behaviour tokenPeriod(Duration period) {
        if (period.isZero() || period.isNegative()) {
            throw new IllegalArgumentException("a token period must be positive, not " + period);
        }
        this.tokenPeriod = period;
        return this;
    }

    /**
     * How full each token bucket is when it is made (when a model is first seen, or the limits change), as a
     * share of its limit: below 1, someone else sharing the key has spent the rest. 1 (full) by default.
     */
    public Behaviour tokenStartLevels(double input, double output, double combined) {
        for (double level : new double[] {input, output, combined}) {
            if (!(level >= 0 && level <= 1)) {
                throw new IllegalArgumentException("a bucket's starting level is a share from 0 to 1, not " + level);
            }
        }
        this.inputStartLevel = input;
        this.outputStartLevel = output;
        this.tokensStartLevel = combined;
        return this;
    }

    public double inputStartLevel() {
        return inputStartLevel;
    }

    public double outputStartLevel() {
        return outputStartLevel;
    }

    public double tokensStartLevel() {
        return tokensStartLevel;
    }

    public boolean roundsRemaining() {
        return roundsRemaining;
    }

    /**
     * Whether the Messages API's token headers state what is left rounded to the nearest thousand, as Anthropic
     * states it; off by default (exact counts).
     */
    public Behaviour roundsRemaining(boolean rounds) {
        this.roundsRemaining = rounds;
        return this;
    }

    /**
     * The limits of one of Anthropic's usage tiers for a Sonnet model: requests, input and output tokens a minute.
     * Tier 1: 50, 30,000 and 8,000; tier 4: 4,000, 2,000,000 and 400,000.
     */
    public Behaviour tier(int tier) {
        long[] limits = switch (tier) {
            case 1 -> new long[] {50, 30_000, 8_000};
            case 2 -> new long[] {1_000, 450_000, 90_000};
            case 3 -> new long[] {2_000, 800_000, 160_000};
            case 4 -> new long[] {4_000, 2_000_000, 400_000};
            default -> throw new IllegalArgumentException("the tiers are 1 to 4, not " + tier);
        };
        ratePeriod(Duration.ofMinutes(1));
        rateLimitPerSecond((int) limits[0]);
        tokenPeriod(Duration.ofMinutes(1));
        return tokenLimits(limits[1], limits[2], 0);
    }

    public long cacheReadTokens() {
        return cacheReadTokens;
    }

    public long cacheWriteTokens() {
        return cacheWriteTokens;
    }

    public UnsafeMerge unsafe() {
        return unsafe;
    }

    /** The stand-in's own answers are unsafe this way from now on; null for correct answers. */
    public Behaviour unsafe(UnsafeMerge kind) {
        this.unsafe = kind;
        return this;
    }

    public boolean rightWhenToldWhy() {
        return rightWhenToldWhy;
    }

    /**
     * With an {@link #unsafe(UnsafeMerge)} kind set: whether a request that carries the merge check's findings
     * (the repair after a refused answer) gets the correct merge, as a model that learns from being told why
     * would answer. Off, the repair is as unsafe as the first answer.
     */
    public Behaviour rightWhenToldWhy(boolean right) {
        this.rightWhenToldWhy = right;
        return this;
    }

    public boolean countsTokens() {
        return countTokens;
    }

    /**
     * Whether each answer reports the stand-in's own count of its request and answer ({@link StandInTokens}),
     * with a prompt cache, instead of the fixed {@link #usage} figures; off by default.
     */
    public Behaviour countsTokens(boolean count) {
        this.countTokens = count;
        return this;
    }

    public long cacheMinimumTokens() {
        return cacheMinimumTokens;
    }

    /** With {@link #countsTokens} on: the shortest prefix, by the stand-in's count, that its prompt cache keeps. */
    public Behaviour cacheMinimumTokens(long tokens) {
        this.cacheMinimumTokens = tokens;
        return this;
    }

    public boolean cutsAtMaxTokens() {
        return cutAtMaxTokens;
    }

    /**
     * Whether an answer longer than the request's output budget stops there, unfinished, as the providers'
     * answers do ({@code stop_reason: max_tokens}, {@code finish_reason: length}); off by default.
     */
    public Behaviour cutAtMaxTokens(boolean cut) {
        this.cutAtMaxTokens = cut;
        return this;
    }

    /** Queues answers given, in order, to the next requests that pass the key and rate checks. */
    public Behaviour script(Scripted... answers) {
        script.addAll(java.util.List.of(answers));
        return this;
    }

    Optional<Scripted> takeScripted() {
        return Optional.ofNullable(script.poll());
    }
}
