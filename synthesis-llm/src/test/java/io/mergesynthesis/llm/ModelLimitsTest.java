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
    void beforeAnyAnswerAcallIsChargedAQuarterTokenPerByteAndItsMaxTokens() {
        Map<Kind, Charge> charges = limits.charges(MAX_TOKENS, 8000);

        assertThat(charges.get(Kind.REQUESTS)).isEqualTo(Charge.ONE_REQUEST);
        assertThat(charges.get(Kind.INPUT_TOKENS)).isEqualTo(new Charge(2000, 2000));
        assertThat(charges.get(Kind.OUTPUT_TOKENS)).isEqualTo(new Charge(MAX_TOKENS, MAX_TOKENS));
        assertThat(charges.get(Kind.TOKENS)).isEqualTo(new Charge(2000 + MAX_TOKENS, 2000 + MAX_TOKENS));
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
    void inputTokensPaceTheCallsByTheirEstimatedSize() throws Exception {
        // 60,000 input tokens left in a bucket full again in 60 s, calls of 2,000 tokens: half of what is left is
        // spread until then, 15 calls over 60 s.
        ModelLimits.Turn first = start();
        limits.answered(first, clock.instant(), Map.of(Kind.INPUT_TOKENS,
                stated(100_000, 60_000, clock.instant().plusSeconds(60))), new Usage(2000, 100, 0, 0), true);

        assertThat(limits.perSecond(Kind.INPUT_TOKENS)).isCloseTo(500, within(1.0));
        assertThat(limits.untilNextStart().toMillis()).as("2,000 tokens at about 500 a second")
                .isBetween(3900L, 4100L);
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isEmpty();
        clock.advance(Duration.ofMillis(4100));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        assertThat(limits.paced(Kind.OUTPUT_TOKENS)).as("a kind never stated is not paced").isFalse();
    }

    @Test
    void theOutputLimitHoldsMaxTokensWhileACallRunsAndGivesBackWhatItDidNotWrite() throws Exception {
        // An answer before the provider stated the limit: the next calls are expected to write 100 tokens.
        limits.answered(start(), clock.instant(), Map.of(), new Usage(2000, 100, 0, 0), true);
        Instant sent = clock.instant();
        Instant reset = sent.plusSeconds(60);
        // 2,000 output tokens left once the first call's 1,024 were held; it wrote 100, so 924 come back.
        ModelLimits.Turn first = start();
        limits.answered(first, sent, Map.of(Kind.OUTPUT_TOKENS, stated(8000, 2000, reset)),
                new Usage(2000, 100, 0, 0), true);
        clock.advance(Duration.ofSeconds(30));
        ModelLimits.Turn second = start();
        Instant secondSent = clock.instant();
        clock.advance(Duration.ofSeconds(25));
        ModelLimits.Turn third = start();
        clock.advance(Duration.ofSeconds(1));

        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000)))
                .as("876 left while two calls hold 1,024 each: less than a call holds").isEmpty();

        // The second call, counted when 1,900 were left, wrote 100 tokens: 924 come back, and there is room again.
        limits.answered(second, secondSent, Map.of(Kind.OUTPUT_TOKENS, stated(8000, 1900, reset)),
                new Usage(2000, 100, 0, 0), true);
        clock.advance(Duration.ofMillis(100));
        assertThat(limits.awaitStart(Duration.ZERO, limits.charges(MAX_TOKENS, 8000))).isPresent();
        limits.unanswered(third);
    }

    @Test
    void aKindNoLongerStatedIsNoLongerPaced() throws Exception {
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
