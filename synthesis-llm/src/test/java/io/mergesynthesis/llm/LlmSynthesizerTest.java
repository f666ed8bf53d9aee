package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The synthesizer against the stand-in over real loopback HTTP: the happy paths of both protocols. */
class LlmSynthesizerTest {

    private StandInProvider standIn;
    private final TestClock clock = new TestClock();
    private final CollectorRegistry registry = new CollectorRegistry();

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY).usage(1000, 200, 0, 0));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private LlmSynthesizer synthesizer(AnswerMode mode) {
        return new LlmSynthesizer(Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), mode),
                clock, Ticker.SYSTEM, registry);
    }

    @Test
    void anthropicToolCallGivesAMergeAndOnePricedCall() throws Exception {
        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(), model("anthropic", "test-model"));

        assertThat(synthesis.merge().producedBy().synthesizer()).isEqualTo("llm");
        assertThat(synthesis.merge().producedBy().provider()).isEqualTo("anthropic");
        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(synthesis.merge().generatedAt()).isEqualTo(clock.instant());
        assertThat(synthesis.merge().confidence()).isEqualTo(0.9);
        assertThat(synthesis.merge().loserActions()).extracting(LoserAction::policyId, LoserAction::action)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("pol-mbr-2", LoserAction.Kind.REMOVE),
                        org.assertj.core.groups.Tuple.tuple("pol-ou-3", LoserAction.Kind.NARROW));

        assertThat(synthesis.calls()).hasSize(1);
        ProviderCall call = synthesis.calls().get(0);
        assertThat(call.pass()).isEqualTo(Pass.PRIMARY);
        assertThat(call.provider()).isEqualTo("anthropic");
        assertThat(call.model()).isEqualTo("test-model");
        assertThat(call.disposition()).isEqualTo(Disposition.ANSWER);
        assertThat(call.inputTokens()).isEqualTo(1000);
        assertThat(call.outputTokens()).isEqualTo(200);
        // 1000 x 3 + 200 x 15 = 6000 per million
        assertThat(call.costUsd()).isEqualByComparingTo(new BigDecimal("0.006"));
        assertThat(call.requestId()).startsWith("req_standin_");
        assertThat(call.startedAt()).isEqualTo(clock.instant());
        assertThat(call.latency()).isPositive();
        assertThat(standIn.stats().path("/v1/messages")).isEqualTo(1);
        assertThat(registry.getSampleValue("llm_calls_total", new String[] {"provider", "outcome"},
                new String[] {"anthropic", "ok"})).isEqualTo(1.0);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "anthropic, TOOL, /v1/messages",
            "anthropic, JSON_SCHEMA, /v1/messages",
            "anthropic, TEXT, /v1/messages",
            "openai, TOOL, /v1/chat/completions",
            "openai, JSON_SCHEMA, /v1/chat/completions",
            "openai, TEXT, /v1/chat/completions"})
    void everyProtocolAndAnswerModeGivesAValidMerge(String provider, AnswerMode mode, String path) throws Exception {
        Synthesis synthesis = synthesizer(mode).synthesizeWithCalls(conflict(), model(provider, "test-model"));

        assertThat(synthesis.merge().conflictId()).isEqualTo(conflict().conflictId());
        assertThat(synthesis.merge().winner().policyId()).isEqualTo("pol-org-1");
        assertThat(synthesis.merge().losers()).extracting(r -> r.policyId()).containsExactly("pol-mbr-2", "pol-ou-3");
        assertThat(synthesis.merge().mergedRule().basedOnPolicyId()).isEqualTo("pol-org-1");
        assertThat(synthesis.merge().producedBy().provider()).isEqualTo(provider);
        assertThat(synthesis.calls()).singleElement().satisfies(call -> {
            assertThat(call.disposition()).isEqualTo(Disposition.ANSWER);
            assertThat(call.provider()).isEqualTo(provider);
        });
        assertThat(standIn.stats().path(path)).isEqualTo(1);
        assertThat(standIn.stats().status(200)).isEqualTo(1);
    }

    @Test
    void openAiCachedTokensAreReadsAndPricedApart() throws Exception {
        standIn.behaviour().usage(1000, 200, 300, 0);

        ProviderCall call = synthesizer(AnswerMode.TOOL)
                .synthesizeWithCalls(conflict(), model("openai", "test-model")).calls().get(0);

        assertThat(call.inputTokens()).isEqualTo(1000); // prompt_tokens 1300 minus 300 cached
        assertThat(call.cacheReadTokens()).isEqualTo(300);
        assertThat(call.cacheWriteTokens()).isZero();
        assertThat(call.requestId()).startsWith("req-standin-");
        // 1000 x 1.25 + 200 x 10 + 300 x 0.125 (a tenth of input) = 3287.5 per million
        assertThat(call.costUsd()).isEqualByComparingTo(new BigDecimal("0.0032875"));
        assertThat(registry.getSampleValue("llm_tokens_total", new String[] {"provider", "kind"},
                new String[] {"openai", "input"})).isEqualTo(1300.0);
        assertThat(registry.getSampleValue("llm_tokens_total", new String[] {"provider", "kind"},
                new String[] {"openai", "output"})).isEqualTo(200.0);
        assertThat(registry.getSampleValue("llm_cost_usd_total", new String[] {"provider"},
                new String[] {"openai"})).isCloseTo(0.0032875, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void anthropicCacheReadsAndWritesArePricedApart() throws Exception {
        standIn.behaviour().usage(1000, 200, 4000, 2000);

        ProviderCall call = synthesizer(AnswerMode.TOOL)
                .synthesizeWithCalls(conflict(), model("anthropic", "test-model")).calls().get(0);

        assertThat(call.inputTokens()).isEqualTo(1000);
        assertThat(call.cacheReadTokens()).isEqualTo(4000);
        assertThat(call.cacheWriteTokens()).isEqualTo(2000);
        // 1000 x 3 + 200 x 15 + 4000 x 0.3 + 2000 x 3.75 = 14700 per million
        assertThat(call.costUsd()).isEqualByComparingTo(new BigDecimal("0.0147"));
    }

    @Test
    void lowConfidenceAsksTheEscalationModelWhoseAnswerIsUsed() throws Exception {
        standIn.behaviour().confidenceFor("test-model", 0.5).confidenceFor("test-model-large", 0.95);

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model-large");
        assertThat(synthesis.merge().confidence()).isEqualTo(0.95);
        assertThat(synthesis.calls()).extracting(ProviderCall::pass, ProviderCall::model, ProviderCall::disposition)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Pass.PRIMARY, "test-model", Disposition.DISCARDED),
                        org.assertj.core.groups.Tuple.tuple(Pass.ESCALATION, "test-model-large", Disposition.ANSWER));
        assertThat(registry.getSampleValue("llm_escalations_total")).isEqualTo(1.0);
        assertThat(standIn.stats().model("test-model-large")).isEqualTo(1);
    }

    @Test
    void thePrimaryCallIsHandedToTheRecorderBeforeTheEscalationIsSent() throws Exception {
        standIn.behaviour().confidenceFor("test-model", 0.5).confidenceFor("test-model-large", 0.95);
        java.util.List<String> seen = new java.util.ArrayList<>();

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"),
                call -> seen.add(call.model() + " after " + standIn.stats().model("test-model-large")
                        + " escalation requests, id " + call.id()));

        // Recorded once, before any request reached the escalation model, and as the same call (same id) that
        // the result reports.
        assertThat(seen).containsExactly("test-model after 0 escalation requests, id " + synthesis.calls().get(0).id());
    }

    @Test
    void confidentPrimaryIsNotEscalated() throws Exception {
        standIn.behaviour().confidenceFor("test-model", 0.7); // the threshold itself is confident enough

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "openai", "test-model-large"));

        assertThat(synthesis.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.ANSWER);
        assertThat(standIn.stats().requests()).isEqualTo(1);
        assertThat(registry.getSampleValue("llm_escalations_total")).isEqualTo(0.0);
    }

    @Test
    void lowConfidenceWithoutAnEscalationModelKeepsThePrimary() throws Exception {
        standIn.behaviour().confidence(0.1);

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(), model("anthropic", "test-model"));

        assertThat(synthesis.merge().confidence()).isEqualTo(0.1);
        assertThat(standIn.stats().requests()).isEqualTo(1);
    }

    @Test
    void escalationAnsweringAServerErrorKeepsThePrimaryAnswer() throws Exception {
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.4)),
                Scripted.raw(500, Map.of(), "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}"));

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(synthesis.merge().confidence()).isEqualTo(0.4);
        assertThat(synthesis.calls()).extracting(ProviderCall::pass, ProviderCall::disposition)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Pass.PRIMARY, Disposition.ANSWER),
                        org.assertj.core.groups.Tuple.tuple(Pass.ESCALATION, Disposition.FAILED));
    }

    @Test
    void escalationGivingAnInvalidAnswerKeepsThePrimaryAnswer() throws Exception {
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.4)), Scripted.answer("{\"resolved_effect\":\"deny\"}"));

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "openai", "test-model-large"));

        assertThat(synthesis.merge().producedBy().provider()).isEqualTo("anthropic");
        assertThat(synthesis.calls()).extracting(ProviderCall::provider, ProviderCall::disposition)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("anthropic", Disposition.ANSWER),
                        org.assertj.core.groups.Tuple.tuple("openai", Disposition.FAILED));
        assertThat(registry.getSampleValue("llm_calls_total", new String[] {"provider", "outcome"},
                new String[] {"openai", "invalid_output"})).isEqualTo(1.0);
    }

    @Test
    void escalationThatIsRateLimitedKeepsThePrimaryAnswerAndRecordsTheLimit() throws Exception {
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.4)));
        standIn.behaviour().failNext(1, Failure.RATE_LIMITED);
        // The script is served before failures: the primary gets the scripted answer, the escalation the 429.

        Synthesis synthesis = synthesizer(AnswerMode.TOOL).synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(synthesis.calls()).extracting(ProviderCall::disposition)
                .containsExactly(Disposition.ANSWER, Disposition.RATE_LIMITED);
    }

    @Test
    void synthesizeReturnsTheMergeAlone() throws Exception {
        LlmSynthesizer synthesizer = synthesizer(AnswerMode.TOOL);

        assertThat(synthesizer.synthesize(conflict(), model("openai", "test-model")).producedBy().model())
                .isEqualTo("test-model");
        assertThat(synthesizer.name()).isEqualTo("llm");
    }
}
