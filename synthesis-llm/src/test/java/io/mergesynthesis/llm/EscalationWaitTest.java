package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.Synthesis;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An escalation whose model asks to wait: waited for when the wait and the pass fit in what is left of the
 * invoke timeout, given up (keeping the primary's paid answer) when they do not. Time moves only when the
 * synthesizer waits, by the test's hand.
 */
@Timeout(30)
class EscalationWaitTest {

    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(30);
    private static final String RATE_LIMITED = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
            + "\"message\":\"slow down\"}}";

    private final TestClock clock = new TestClock();
    private final TestTicker ticker = new TestTicker();
    private final CollectorRegistry registry = new CollectorRegistry();
    private final List<Duration> waits = new ArrayList<>();
    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY).confidence(0.9));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private LlmSynthesizer synthesizer() {
        LlmSettings settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
        settings.getProviders().get("anthropic").setRequestTimeout(Duration.ofSeconds(12));
        return new LlmSynthesizer(settings, clock, ticker, registry, INVOKE_TIMEOUT, wait -> {
            waits.add(wait);
            clock.advance(wait);
            ticker.advance(wait);
        });
    }

    /** The primary answers unsure; the escalation model answers 429 asking for {@code retryAfter} seconds. */
    private void escalationMeets429(int retryAfter) {
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.5)),
                Scripted.raw(429, Map.of("retry-after", Integer.toString(retryAfter)), RATE_LIMITED));
    }

    private double waited() {
        Double value = registry.getSampleValue("llm_escalation_waits_total");
        return value == null ? 0 : value;
    }

    private double escalations() {
        Double value = registry.getSampleValue("llm_escalations_total");
        return value == null ? 0 : value;
    }

    @Test
    void anEscalationWaitsOutAShortPauseOfItsModelAndIsAnswered() throws Exception {
        escalationMeets429(3);

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(waits).containsExactly(Duration.ofSeconds(3));
        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model-large");
        assertThat(synthesis.merge().confidence()).isEqualTo(0.9);
        assertThat(synthesis.calls()).extracting(ProviderCall::model, ProviderCall::disposition).containsExactly(
                org.assertj.core.groups.Tuple.tuple("test-model", Disposition.DISCARDED),
                org.assertj.core.groups.Tuple.tuple("test-model-large", Disposition.RATE_LIMITED),
                org.assertj.core.groups.Tuple.tuple("test-model-large", Disposition.ANSWER));
        assertThat(standIn.stats().requests()).isEqualTo(3);
        assertThat(waited()).isEqualTo(1);
        assertThat(escalations()).as("counted as before, once").isEqualTo(1);
    }

    @Test
    void theCallAnsweredWithAWaitIsOnRecordBeforeTheWait() throws Exception {
        escalationMeets429(3);
        List<String> recorded = new ArrayList<>();

        synthesizer().synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"),
                call -> recorded.add(call.model() + " " + call.disposition() + " after " + waits.size() + " waits"));

        // A replica killed during the wait, or during the call asked again, loses that one call at most.
        assertThat(recorded).containsExactly("test-model ANSWER after 0 waits",
                "test-model-large RATE_LIMITED after 0 waits");
    }

    @Test
    void anEscalationGivesUpWhenTheWaitWouldNotFitAndKeepsThePrimarysAnswer() throws Exception {
        // 20 s of pause and a whole pass (2 s for a slot, 12 s of request timeout, 1 s to spare) exceed 30 s.
        escalationMeets429(20);

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(waits).isEmpty();
        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(synthesis.merge().confidence()).isEqualTo(0.5);
        assertThat(synthesis.calls()).extracting(ProviderCall::disposition)
                .containsExactly(Disposition.ANSWER, Disposition.RATE_LIMITED);
        assertThat(standIn.stats().requests()).isEqualTo(2);
        assertThat(waited()).isZero();
        assertThat(escalations()).isEqualTo(1);
    }

    @Test
    void theWaitCountsAgainstWhatIsLeftOfTheInvokeTimeout() throws Exception {
        // Each wait fits alone; the second no longer fits after the first, and the escalation gives up then.
        standIn.behaviour().script(Scripted.answer(Fixtures.answer(0.5)),
                Scripted.raw(429, Map.of("retry-after", "8"), RATE_LIMITED),
                Scripted.raw(429, Map.of("retry-after", "8"), RATE_LIMITED));

        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(waits).containsExactly(Duration.ofSeconds(8));
        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(standIn.stats().requests()).isEqualTo(3);
        assertThat(waited()).as("one escalation that waited").isEqualTo(1);
    }

    @Test
    void withoutAnInvokeTimeoutNothingIsWaitedFor() throws Exception {
        escalationMeets429(1);
        LlmSynthesizer synthesizer = new LlmSynthesizer(
                Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL), clock,
                ticker, registry);

        Synthesis synthesis = synthesizer.synthesizeWithCalls(conflict(),
                Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));

        assertThat(synthesis.merge().producedBy().model()).isEqualTo("test-model");
        assertThat(waited()).isZero();
    }
}
