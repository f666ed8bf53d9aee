package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a merge costs, against the stand-in over loopback: an answer cut at its budget is asked once more in the
 * same attempt with both calls paid, and cache reads and writes reach the calls, their cost and the metrics.
 */
class AnswerCostTest {

    private StandInProvider standIn;
    private final CollectorRegistry registry = new CollectorRegistry();

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private LlmSynthesizer synthesizer(LlmSettings settings) {
        return new LlmSynthesizer(settings, new TestClock(), Ticker.SYSTEM, registry);
    }

    private LlmSettings settings() {
        return Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
    }

    /** Before the model has answered, a three-rule conflict gets the prior guess alone. */
    private static int firstBudget() {
        return AnswerBudget.PRIOR_TOKENS_PER_RULE * (3 + AnswerBudget.FIXED_PART_IN_RULES);
    }

    /** A cut first call is asked again with twice its budget, and no less than maxOutputTokens. */
    private static int retryBudget(LlmSettings settings, String provider) {
        return Math.max(2 * firstBudget(), settings.getProviders().get(provider).getMaxOutputTokens());
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anAnswerCutAtItsBudgetIsAskedOnceMoreWithTwiceAsMuchAndBothCallsArePaid(String provider) throws Exception {
        LlmSettings settings = settings();
        int first = firstBudget();
        // Longer than the first budget, shorter than the retry's.
        standIn.behaviour().cutAtMaxTokens(true).usage(1000, first + first / 2, 0, 0);

        Synthesis synthesis = synthesizer(settings).synthesizeWithCalls(conflict(), model(provider, "test-model"));

        assertThat(synthesis.calls()).extracting(ProviderCall::disposition)
                .containsExactly(Disposition.FAILED, Disposition.ANSWER);
        assertThat(synthesis.calls().get(0).outputTokens()).isEqualTo(first);
        assertThat(synthesis.calls().get(1).outputTokens()).isEqualTo(first + first / 2);
        assertThat(synthesis.calls()).allSatisfy(call -> assertThat(call.costUsd()).isPositive());
        assertThat(synthesis.calls().get(0).id()).isNotEqualTo(synthesis.calls().get(1).id());
        assertThat(synthesis.merge().loserActions()).hasSize(2);
        assertThat(standIn.stats().requests()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void aSecondCutFailsTheAttemptAndKeepsBothCalls(String provider) throws Exception {
        LlmSettings settings = settings();
        int first = firstBudget();
        int retry = retryBudget(settings, provider);
        standIn.behaviour().cutAtMaxTokens(true).usage(1000, retry + 1, 0, 0);

        InvalidAnswerException e = catchThrowableOfType(
                () -> synthesizer(settings).synthesizeWithCalls(conflict(), model(provider, "test-model")),
                InvalidAnswerException.class);

        assertThat(e.calls()).extracting(ProviderCall::disposition)
                .containsExactly(Disposition.FAILED, Disposition.FAILED);
        assertThat(e.calls()).extracting(ProviderCall::outputTokens).containsExactly((long) first, (long) retry);
        assertThat(e.summary()).contains("cut short");
        assertThat(standIn.stats().requests()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anAnswerWithinItsBudgetIsOneCall(String provider) throws Exception {
        standIn.behaviour().cutAtMaxTokens(true).usage(1000, 100, 0, 0);

        Synthesis synthesis = synthesizer(settings()).synthesizeWithCalls(conflict(), model(provider, "test-model"));

        assertThat(synthesis.calls()).extracting(ProviderCall::disposition).containsExactly(Disposition.ANSWER);
    }

    @Test
    void aFirstCallFitsWhatASmallTiersBucketHoldsWhenSomeoneElseHasSpentMostOfIt() throws Exception {
        // Anthropic's first tier, 8,000 output tokens a minute, a tenth left and stated rounded: 800 tokens, less
        // than the configured budget of 1,024, which the provider would refuse.
        standIn.behaviour().tier(1).tokenStartLevels(1, 0.1, 1).roundsRemaining(true).usage(1000, 150, 0, 0);

        Synthesis synthesis = synthesizer(settings()).synthesizeWithCalls(conflict(), model("anthropic", "test-model"));

        assertThat(synthesis.calls()).extracting(ProviderCall::disposition).containsExactly(Disposition.ANSWER);
        assertThat(synthesis.calls().get(0).outputTokens()).isEqualTo(150);
        assertThat(standIn.stats().status(429)).isZero();
    }

    @Test
    void aCallThatWaitedThroughTheModelsFirstAnswerAsksWhatAnAnsweredModelsCallsAsk() throws Exception {
        LlmSettings settings = settings();
        // Longer than the first budget, within the configured one.
        standIn.behaviour().cutAtMaxTokens(true).usage(1000, firstBudget() + 100, 0, 0)
                .latency(Duration.ofMillis(500));
        LlmSynthesizer synthesizer = synthesizer(settings);
        CompletableFuture<Synthesis> first = CompletableFuture.supplyAsync(() -> synthesize(synthesizer));
        Wait.until("the first call sent", Duration.ofSeconds(10), () -> standIn.stats().requests() == 1);

        // Made while the first call is on its way: it waits for that answer, and then asks as a heard model's do.
        Synthesis second = synthesize(synthesizer);

        assertThat(first.get().calls()).extracting(ProviderCall::disposition)
                .as("the first call asked the prior, was cut, and was asked again")
                .containsExactly(Disposition.FAILED, Disposition.ANSWER);
        assertThat(second.calls()).extracting(ProviderCall::disposition).containsExactly(Disposition.ANSWER);
    }

    private static Synthesis synthesize(LlmSynthesizer synthesizer) {
        try {
            return synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void aCachedPrefixIsWrittenOnceThenReadAndPricedAsSuch(String provider) throws Exception {
        LlmSettings settings = settings();
        ModelPrice price = settings.getModels().get(provider + "/test-model");
        price.setMinCachedPrefixTokens(100);
        standIn.behaviour().countsTokens(true).cacheMinimumTokens(100);
        LlmSynthesizer synthesizer = synthesizer(settings);

        ProviderCall first = synthesizer.synthesizeWithCalls(conflict(), model(provider, "test-model")).calls().get(0);
        // The same conflict again, so that the two calls read the same number of tokens in all.
        ProviderCall second = synthesizer.synthesizeWithCalls(conflict(), model(provider, "test-model")).calls().get(0);

        assertThat(first.cacheReadTokens()).isZero();
        assertThat(second.cacheReadTokens()).isPositive();
        assertThat(second.cacheWriteTokens()).isZero();
        // Anthropic bills the write; OpenAI caches unasked and bills the first sight as plain input.
        long written = provider.equals("anthropic") ? first.cacheWriteTokens() : 0;
        assertThat(first.cacheWriteTokens()).isEqualTo(written);
        assertThat(first.inputTokens() + first.cacheWriteTokens())
                .isEqualTo(second.inputTokens() + second.cacheReadTokens());
        BigDecimal expected = BigDecimal.valueOf(second.inputTokens()).multiply(new BigDecimal(provider.equals("anthropic") ? "3" : "1.25"))
                .add(BigDecimal.valueOf(second.cacheReadTokens()).multiply(price.effectiveCacheRead()))
                .add(BigDecimal.valueOf(second.outputTokens()).multiply(new BigDecimal(provider.equals("anthropic") ? "15" : "10")))
                .movePointLeft(6);
        assertThat(second.costUsd()).isEqualByComparingTo(expected);
        assertThat(registry.getSampleValue("llm_tokens_total", new String[] {"provider", "kind"},
                new String[] {provider, "cache_read"})).isEqualTo((double) second.cacheReadTokens());
        assertThat(registry.getSampleValue("llm_tokens_total", new String[] {"provider", "kind"},
                new String[] {provider, "cache_write"})).isEqualTo((double) written);
        assertThat(registry.getSampleValue("llm_tokens_total", new String[] {"provider", "kind"},
                new String[] {provider, "input"})).isEqualTo((double) (first.inputTokens() + first.cacheWriteTokens()
                + second.inputTokens() + second.cacheReadTokens()));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1_000_000})
    void anAnthropicPrefixBelowTheModelsMinimumIsNotMarkedAndNothingIsCached(int minimum) throws Exception {
        LlmSettings settings = settings();
        settings.getModels().get("anthropic/test-model").setMinCachedPrefixTokens(minimum == 0 ? null : minimum);
        standIn.behaviour().countsTokens(true).cacheMinimumTokens(1);
        LlmSynthesizer synthesizer = synthesizer(settings);

        synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model"));
        ProviderCall second = synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model")).calls().get(0);

        assertThat(second.cacheReadTokens()).isZero();
        assertThat(second.cacheWriteTokens()).isZero();
        assertThat(second.inputTokens()).isPositive();
    }
}
