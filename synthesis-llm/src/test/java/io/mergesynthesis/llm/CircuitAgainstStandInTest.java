package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.anotherConflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Outage;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The synthesizer's circuit against the stand-in's three kinds of outage, end to end over HTTP. */
@Timeout(60)
class CircuitAgainstStandInTest {

    private final TestClock clock = new TestClock();
    private final CollectorRegistry registry = new CollectorRegistry();
    private StandInProvider standIn;
    private LlmSynthesizer synthesizer;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY));
        LlmSettings settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
        settings.getProviders().get("anthropic").setRequestTimeout(Duration.ofMillis(300));
        synthesizer = new LlmSynthesizer(settings, clock, Ticker.SYSTEM, registry);
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private SynthesisDeferred deferredCall() {
        return catchThrowableOfType(() -> synthesizer.synthesizeWithCalls(anotherConflict(),
                model("anthropic", "test-model")), SynthesisDeferred.class);
    }

    private double metric(String name, String provider) {
        Double value = registry.getSampleValue(name, new String[] {"provider"}, new String[] {provider});
        return value == null ? -1 : value;
    }

    private CircuitStatus anthropic() {
        return synthesizer.circuits().stream().filter(c -> c.provider().equals("anthropic")).findFirst().orElseThrow();
    }

    @ParameterizedTest
    @EnumSource(value = Outage.class, names = {"STATUS_503", "HANG", "REFUSE"})
    void anOutageOpensTheCircuitHoldsCallsBackAndTheFirstAnswerClosesIt(Outage kind) throws Exception {
        standIn.outage(kind);
        for (int i = 0; i < 4; i++) {
            assertThat(deferredCall().deferral()).isEqualTo(SynthesisDeferred.Cause.OUTAGE_SUSPECTED);
        }
        SynthesisDeferred opening = deferredCall();
        long requestsWhenOpened = standIn.stats().requests();

        SynthesisDeferred held = deferredCall();

        assertThat(opening.deferral()).isEqualTo(SynthesisDeferred.Cause.PROVIDER_OUTAGE);
        assertThat(opening.deferral().pausesProvider()).isTrue();
        assertThat(held.deferral()).isEqualTo(SynthesisDeferred.Cause.PROVIDER_OUTAGE);
        assertThat(held).hasMessageContaining("no call made");
        assertThat(standIn.stats().requests()).as("an open circuit sends nothing").isEqualTo(requestsWhenOpened);
        assertThat(anthropic().open()).isTrue();
        assertThat(synthesizer.circuits()).extracting(CircuitStatus::provider).containsExactly("anthropic", "openai");
        assertThat(metric("llm_circuit_state", "anthropic")).isEqualTo(1);
        assertThat(metric("llm_circuit_openings_total", "anthropic")).isEqualTo(1);
        assertThat(metric("llm_circuit_state", "openai")).as("the other provider is not affected").isZero();

        standIn.outage(Outage.NONE);
        clock.advance(Duration.ofSeconds(1));
        var merged = synthesizer.synthesizeWithCalls(anotherConflict(), model("anthropic", "test-model"));

        assertThat(merged.merge()).isNotNull();
        assertThat(anthropic().open()).isFalse();
        assertThat(metric("llm_circuit_state", "anthropic")).isZero();
    }

    @Test
    void aFailedProbeKeepsTheCircuitOpenForTwiceAsLong() throws Exception {
        standIn.outage(Outage.STATUS_503);
        for (int i = 0; i < 5; i++) {
            deferredCall();
        }
        clock.advance(Duration.ofSeconds(1));
        long before = standIn.stats().requests();

        SynthesisDeferred probe = deferredCall();

        assertThat(standIn.stats().requests()).as("the probe is one call").isEqualTo(before + 1);
        assertThat(probe.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(anthropic().detail()).contains("1 probes failed", "next probe in 2000 ms");
    }

    @Test
    void theOutageSwitchIsServedOverHttpToo() throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var base = standIn.anthropicBaseUrl() + "/stand-in/outage";
        var post = java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "?kind=status-503&for=30s"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build();
        var refuseForever = java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "?kind=refuse"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build();

        var started = http.send(post, java.net.http.HttpResponse.BodyHandlers.ofString());
        var refused = http.send(refuseForever, java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(started.body()).contains("\"outage\":\"status-503\"");
        assertThat(standIn.outage()).isEqualTo(Outage.STATUS_503);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("say for how long");
    }
}
