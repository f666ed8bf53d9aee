package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A provider without a key on this replica (its variable unset) is never sent a request, of either protocol: the
 * call is deferred uncounted, naming the variable to set, and the provider counts no request. Only a model outside
 * the route can get here, since the route's providers must have keys for the synthesizer to start.
 */
@Timeout(30)
class MissingKeyTest {

    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void aProviderWithoutAKeyIsDeferredWithoutARequest(ProviderType type) {
        String keyless = type.wireName();
        String keyed = type == ProviderType.ANTHROPIC ? "openai" : "anthropic";
        LlmSettings settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
        settings.setPrimaryModel(keyed + "/test-model");
        settings.setEscalationModel(keyed + "/test-model-large");
        // What the shipped configuration gives for an unset variable: an empty YAML value, read as null.
        settings.getProviders().get(keyless).setApiKey(null);
        LlmSynthesizer synthesizer = new LlmSynthesizer(settings, new TestClock(), Ticker.SYSTEM, new CollectorRegistry());

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer.synthesizeWithCalls(conflict(), model(keyless, "test-model")),
                SynthesisDeferred.class);

        assertThat(deferred).as("a deferral, not a failure of the conflict").isNotNull();
        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.MISSING_KEY);
        assertThat(deferred.deferral().pausesProvider()).as("other models' conflicts go on").isFalse();
        assertThat(deferred.provider()).isEqualTo(keyless);
        assertThat(deferred.getMessage()).contains(type.name() + "_API_KEY").contains("no call made");
        assertThat(deferred.calls()).isEmpty();
        assertThat(standIn.stats().requests()).as("requests that reached the provider").isZero();
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void noRequestIsBuiltWithoutAKey(ProviderType type) {
        ProviderSettings provider = new ProviderSettings(type, standIn.openAiBaseUrl(), " ");

        assertThatThrownBy(() -> WireProtocol.of(type).request(provider, "test-model", Prompt.shipped(), conflict()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(type.name().toUpperCase(Locale.ROOT) + "_API_KEY");
    }
}
