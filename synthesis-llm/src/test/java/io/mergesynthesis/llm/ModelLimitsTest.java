package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.mergesynthesis.llm.ProviderPace.Charge;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A model's limits together: every kind a provider states paces the calls, each in its own units. */
class ModelLimitsTest {

    private static final long MAX_TOKENS = 1024;

    private final TestClock clock = new TestClock();
    private final ModelLimits limits = new ModelLimits(clock, Ticker.SYSTEM);

    private ModelLimits.Turn start() throws InterruptedException {
        return limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000)).orElseThrow();
    }

    private static Stated stated(long limit, long remaining, Instant reset) {
        return new Stated(OptionalLong.of(limit), remaining, reset);
    }

    @Test
    void aWaitLongerThanAllowedIsRefusedAtOnce() throws Exception {
        ModelLimits.Turn turn = start();
        limits.answered(turn, clock.instant(), Map.of(Kind.REQUESTS, stated(20, 0, clock.instant().plusSeconds(1))),
                Usage.NONE, false);

        Map<Kind, Charge> charges = limits.charges(MAX_TOKENS, 8000);
        long before = System.nanoTime();
        assertThat(limits.awaitStart(Duration.ofMillis(200), charges)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofMillis(150));

        clock.advance(Duration.ofSeconds(2));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
    }

    @Test
    void aCallTheSharedBucketsSentAwaySleepsTheirWaitLessTheRefusalsRoundTrip() {
        // The store looked halfway through a 6 ms round trip and found the tokens 3 s away: asked again 6 ms early,
        // the next reservation reaches it as they come in.
        assertThat(ModelLimits.napBeforeAskingAgain(Duration.ofMillis(3000), 6_000_000L))
                .isEqualTo(Duration.ofMillis(2994).toNanos());
        assertThat(ModelLimits.napBeforeAskingAgain(Duration.ofMillis(3000), 0))
                .as("a wait of this replica's own limits, no round trip").isEqualTo(Duration.ofMillis(3000).toNanos());
        assertThat(ModelLimits.napBeforeAskingAgain(Duration.ofMillis(2), 5_000_000L))
                .as("a round trip longer than the wait: still a nap, not a spin on the store")
                .isEqualTo(Duration.ofMillis(1).toNanos());
    }

    @Test
    void beforeAnyAnswerAcallIsChargedAQuarterTokenPerByteAndItsMaxTokens() {
        Map<Kind, Charge> charges = limits.charges(MAX_TOKENS, 8000);

        assertThat(charges.get(Kind.REQUESTS)).isEqualTo(Charge.ONE_REQUEST);
        assertThat(charges.get(Kind.INPUT_TOKENS)).isEqualTo(new Charge(2000, 2000));
        assertThat(charges.get(Kind.OUTPUT_TOKENS)).isEqualTo(new Charge(MAX_TOKENS, MAX_TOKENS));
        assertThat(charges.get(Kind.TOKENS)).isEqualTo(new Charge(2000 + MAX_TOKENS, 2000 + MAX_TOKENS));
    }

    @Test
    void aCallThatWaitedThroughTheFirstAnswerIsChargedWhatThatAnswerCounted() throws Exception {
        ModelLimits.Turn first = start();
        AtomicReference<ModelLimits.Turn> second = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                second.set(limits.awaitStart(Duration.ofSeconds(30), () -> limits.charges(MAX_TOKENS, 8000))
                        .orElseThrow());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        // Until the first answer, the second call waits for it: the first goes alone.
        while (waiter.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }

        limits.answered(first, clock.instant(), Map.of(), new Usage(5000, 100, 0, 0), true);
        waiter.join();

        assertThat(second.get().charges().get(Kind.INPUT_TOKENS).held())
                .as("the count the answer gave, not the guess of a quarter of the request's 8,000 bytes")
                .isEqualTo(5000.0);
    }

    @Test
    void aCallWhoseTurnWaitsOnWhatACallInFlightHoldsWaitsForItsEndInsteadOfBeingHandedBack() throws Exception {
        ModelLimits shared = new ModelLimits(clock, Ticker.SYSTEM, new InProcessSharedLimits(clock),
                new SharedLimits.Key("anthropic", "small-tier"));
        // 8,000 output tokens a minute (133 a second); the first answer finds 150 left after its 1,024 were held,
        // and gives back the 874 it did not write: 1,024 in the bucket, one call's hold.
        ModelLimits.Turn first = shared.awaitStart(Duration.ZERO, shared.charges(MAX_TOKENS, 400)).orElseThrow();
        shared.answered(first, clock.instant(), Map.of(Kind.OUTPUT_TOKENS, stated(8000, 150,
                clock.instant().plusSeconds(60))), new Usage(100, 150, 0, 0), true);
        ModelLimits.Turn inFlight = shared.awaitStart(Duration.ZERO, shared.charges(MAX_TOKENS, 400)).orElseThrow();

        // Nothing left while the second call runs: the refill alone would take 7.7 s, more than the 2 s a worker
        // waits; the second call's end gives back 874 of its hold, and the refill the rest within the wait.
        AtomicReference<java.util.Optional<ModelLimits.Turn>> third = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                third.set(shared.awaitStart(Duration.ofSeconds(2), () -> shared.charges(MAX_TOKENS, 400)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.isAlive()) {
            Thread.onSpinWait();
        }
        assertThat(waiter.isAlive()).as("waiting for the call in flight, not handed back at once").isTrue();

        shared.answered(inFlight, clock.instant(), Map.of(), new Usage(100, 150, 0, 0), true);
        clock.advance(Duration.ofMillis(1200));
        waiter.join();

        assertThat(third.get()).as("started once the second call gave back its hold and 150 more flowed in")
                .isPresent();
    }

    @Test
    void theNextCallIsEstimatedFromTheLastAnswersAtAHighPercentile() throws Exception {
        Random random = new Random(30);
        for (int round = 0; round < 20; round++) {
            ModelLimits fresh = new ModelLimits(clock, Ticker.SYSTEM);
            int n = 1 + random.nextInt(RecentTokens.KEPT);
            long[] inputs = new long[n];
            long outputs = 0;
            for (int i = 0; i < n; i++) {
                inputs[i] = 500 + random.nextInt(3000);
                long output = 50 + random.nextInt(200);
                outputs += output;
                ModelLimits.Turn turn = fresh.awaitStart(Duration.ZERO, fresh.charges(MAX_TOKENS, 100)).orElseThrow();
                fresh.answered(turn, clock.instant(), Map.of(), new Usage(inputs[i], output, 0, 0), true);
            }
            Map<Kind, Charge> charges = fresh.charges(MAX_TOKENS, 100);
            long atLeast = java.util.Arrays.stream(inputs).filter(x -> x <= charges.get(Kind.INPUT_TOKENS).held())
                    .count();
            assertThat(atLeast).as("round %d: at least 90%% of the last %d inputs fit the estimate", round, n)
                    .isGreaterThanOrEqualTo((long) Math.ceil(0.9 * n));
            assertThat(charges.get(Kind.INPUT_TOKENS).held())
                    .isLessThanOrEqualTo(java.util.Arrays.stream(inputs).max().orElseThrow());
            assertThat(charges.get(Kind.OUTPUT_TOKENS).held()).as("max_tokens is held whatever is expected")
                    .isEqualTo(MAX_TOKENS);
            assertThat(charges.get(Kind.OUTPUT_TOKENS).expected()).as("what they wrote on average")
                    .isCloseTo(outputs / (double) n, within(1e-9));
            assertThat(charges.get(Kind.INPUT_TOKENS).expected()).as("what they sent on average")
                    .isCloseTo(java.util.Arrays.stream(inputs).average().orElseThrow(), within(1e-9));
        }
    }

    @Test
    void whatTheFirstStatementFindsIsSpreadOverTheFirstSecondsWithTheRefill() throws Exception {
        // 60,000 input tokens a minute, 1,000 a second; 5,500 left once the first call was counted. Whether others
        // share the key, nothing says yet: the 5,500 are spread over five seconds, 1,100 a second, on top of the
        // refill. Calls of 2,000 tokens: one goes at once, the next once its 2,000 have come at 2,100 a second.
        Instant sent = clock.instant();
        ModelLimits.Turn first = start();
        limits.answered(first, sent, Map.of(Kind.INPUT_TOKENS, stated(60_000, 5_500, sent.plusMillis(54_500))),
                new Usage(2000, 100, 0, 0), true);

        assertThat(limits.perSecond(Kind.INPUT_TOKENS)).isCloseTo(1000, within(1.0));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isEmpty();
        assertThat(limits.untilNextStart().toMillis()).as("2,000 tokens at 2,100 a second").isBetween(940L, 960L);
        clock.advance(Duration.ofMillis(960));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        assertThat(limits.paced(Kind.OUTPUT_TOKENS)).as("a kind never stated is not paced").isFalse();
    }

    @Test
    void onceTheFirstLevelIsSpreadCallsGoWhileTheBucketHoldsThemThenAtItsRefill() throws Exception {
        Instant sent = clock.instant();
        ModelLimits.Turn first = start();
        limits.answered(first, sent, Map.of(Kind.INPUT_TOKENS, stated(60_000, 500, sent.plusMillis(59_500))),
                new Usage(2000, 100, 0, 0), true);
        clock.advance(BucketPace.RELEASE);
        // 5,500 by now: two calls of 2,000 go at once, the third when 500 more have flowed back.
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isEmpty();
        assertThat(limits.untilNextStart().toMillis()).as("500 tokens at 1,000 a second").isBetween(490L, 510L);
        clock.advance(Duration.ofMillis(510));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
    }

    @Test
    void theOutputLimitHoldsMaxTokensWhileACallRunsAndGivesBackWhatItDidNotWrite() throws Exception {
        // 8,000 output tokens a minute; 600 left, exactly, while the first call held its 1,024. It wrote 100, so
        // 924 came back when it ended: 1,524 left.
        Instant sent = clock.instant();
        limits.answered(start(), sent, Map.of(Kind.OUTPUT_TOKENS, stated(8000, 600, sent.plusMillis(55_500))),
                new Usage(2000, 100, 0, 0), true);
        ModelLimits.Turn holding = start();

        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000)))
                .as("500 left while a second call holds 1,024: less than a call holds").isEmpty();

        clock.advance(Duration.ofMillis(200));
        limits.answered(holding, sent, Map.of(), Usage.NONE, false);
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000)))
                .as("its hold came back with its answer, a refusal").isPresent();
    }

    @Test
    void aKindNoLongerStatedIsNoLongerPaced() throws Exception {
        limits.answered(start(), clock.instant(), Map.of(), new Usage(2000, 100, 0, 0), true);
        ModelLimits.Turn first = start();
        ModelLimits.Turn second = start();
        limits.answered(first, clock.instant(), Map.of(Kind.TOKENS,
                stated(10_000, 0, clock.instant().plusSeconds(60))), new Usage(2000, 100, 0, 0), true);
        assertThat(limits.untilNextStart()).as("nothing left until the reset").isPositive();
        assertThat(limits.paced(Kind.TOKENS)).isTrue();

        limits.answered(second, clock.instant(), Map.of(), new Usage(2000, 100, 0, 0), true);

        assertThat(limits.paced(Kind.TOKENS)).isFalse();
        assertThat(limits.untilNextStart()).isZero();
    }
}
