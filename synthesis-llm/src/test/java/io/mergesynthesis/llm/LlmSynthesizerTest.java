package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.llm.standin.Behaviour;
import io.mergesynthesis.llm.standin.StandInProvider;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.Synthesis;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
                clock, registry);
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
}
