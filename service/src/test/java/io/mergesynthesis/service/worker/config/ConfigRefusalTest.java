package io.mergesynthesis.service.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import java.time.Clock;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Configurations that could let a live worker lose its lease, or name no known synthesizer, are refused. */
class ConfigRefusalTest {

    @Test
    void aLeaseNoLongerThanTheInvokeTimeoutPlusMarginIsRefusedNamingBothValues() {
        SynthesisFactory factory = new SynthesisFactory();
        factory.setInvokeTimeout(Duration.seconds(30));
        factory.setLeaseDuration(Duration.seconds(10));
        assertThatThrownBy(() -> factory.settings("r"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("synthesis.leaseDuration (10s)")
                .hasMessageContaining("synthesis.invokeTimeout (30s)")
                .hasMessageContaining("margin of 3s");

        factory.setLeaseDuration(Duration.seconds(33)); // exactly timeout + margin: still too short
        assertThatThrownBy(() -> factory.settings("r")).isInstanceOf(IllegalArgumentException.class);

        factory.setLeaseDuration(Duration.seconds(34));
        assertThat(factory.settings("r").leaseDuration()).isEqualTo(java.time.Duration.ofSeconds(34));

        factory.setInvokeTimeout(Duration.milliseconds(500)); // the margin never drops below one second
        factory.setLeaseDuration(Duration.milliseconds(1500));
        assertThatThrownBy(() -> factory.settings("r")).hasMessageContaining("margin of 1s");
    }

    @Test
    void theDefaultsAreAccepted() {
        PoolSettings settings = new SynthesisFactory().settings("r");
        assertThat(settings.workers()).isEqualTo(4);
        assertThat(settings.invokeTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(settings.maxAttempts()).isEqualTo(3);
        assertThat(settings.baseBackoff()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(settings.listen()).isTrue();
        assertThat(settings.leasesAheadPerWorker()).isEqualTo(3);
    }

    @Test
    void leasesAheadPerWorkerOutsideZeroToSixteenIsRefusedNamingTheSetting() {
        SynthesisFactory factory = new SynthesisFactory();
        for (int refused : new int[] {-1, 17}) {
            factory.setLeasesAheadPerWorker(refused);
            assertThatThrownBy(() -> factory.settings("r"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("synthesis.leasesAheadPerWorker must be between 0 (one lease per worker) "
                            + "and 16, got " + refused);
        }
        factory.setLeasesAheadPerWorker(0);
        assertThat(factory.settings("r").leasesAheadPerWorker()).isZero();
    }

    @Test
    void anUnknownSynthesizerIsRefusedListingTheAvailableOnes() {
        SynthesisFactory factory = new SynthesisFactory();
        factory.setSynthesizer("gpt-merge");
        assertThatThrownBy(() -> factory.synthesizer(SynthesizerCatalog.discover(), "r", Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'gpt-merge'")
                .hasMessageContaining("available: stub");
        assertThat(SynthesizerCatalog.discover().names()).contains("stub");
    }

    @Test
    void theServerRefusesToStartWithAnUnsafeLease() {
        assertStartRefused("synthesis.leaseDuration (5s) must be longer than synthesis.invokeTimeout (30s)",
                ConfigOverride.config("synthesis.leaseDuration", "5s"));
    }

    @Test
    void theServerRefusesToStartWithAnUnknownSynthesizer() {
        assertStartRefused("no synthesizer has that name; available: llm, stub",
                ConfigOverride.config("synthesis.synthesizer", "nonesuch"));
    }

    @Test
    void theServerRefusesToStartTheLlmSynthesizerWithoutAKeyAndNamesTheVariable() {
        assertStartRefused("provider 'anthropic' has no API key: set ANTHROPIC_API_KEY",
                ConfigOverride.config("synthesis.synthesizer", "llm"),
                ConfigOverride.config("llm.primaryModel", "anthropic/some-model"),
                ConfigOverride.config("llm.providers.anthropic.type", "anthropic"),
                ConfigOverride.config("llm.providers.anthropic.baseUrl", "http://127.0.0.1:9"),
                ConfigOverride.config("llm.providers.anthropic.apiKey", ""),
                ConfigOverride.config("llm.models.anthropic/some-model.inputPerMillionUsd", "1"),
                ConfigOverride.config("llm.models.anthropic/some-model.outputPerMillionUsd", "5"));
    }

    @Test
    void theServerRefusesLlmRequestTimeoutsThatTwoPassesCouldNotFitInTheInvokeTimeout() {
        assertStartRefused("must fit within synthesis.invokeTimeout (30000 ms)",
                ConfigOverride.config("synthesis.synthesizer", "llm"),
                ConfigOverride.config("llm.primaryModel", "local/small"),
                ConfigOverride.config("llm.escalationModel", "local/large"),
                ConfigOverride.config("llm.providers.local.type", "openai"),
                ConfigOverride.config("llm.providers.local.baseUrl", "http://127.0.0.1:9"),
                ConfigOverride.config("llm.providers.local.apiKey", "k"),
                ConfigOverride.config("llm.providers.local.requestTimeout", "15s"),
                ConfigOverride.config("llm.models.local/small.inputPerMillionUsd", "1"),
                ConfigOverride.config("llm.models.local/small.outputPerMillionUsd", "5"),
                ConfigOverride.config("llm.models.local/large.inputPerMillionUsd", "1"),
                ConfigOverride.config("llm.models.local/large.outputPerMillionUsd", "5"));
    }

    private static void assertStartRefused(String message, ConfigOverride... overrides) {
        TestDatabase database = TestDatabase.fresh();
        ConfigOverride[] all = java.util.stream.Stream.concat(
                java.util.stream.Stream.of(ConfigOverride.config("database.url", database.url())),
                java.util.stream.Stream.of(overrides)).toArray(ConfigOverride[]::new);
        DropwizardTestSupport<MergeSynthesisConfiguration> app = new DropwizardTestSupport<>(
                MergeSynthesisApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"), all);
        ThrowingCallable start = app::before;
        try {
            assertThatThrownBy(start).hasMessageContaining(message);
        } finally {
            app.after();
        }
    }
}
