package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.Ticker;
import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Binding the {@code llm:} block as Jackson will from the service's YAML, and what it refuses. */
class LlmSettingsTest {

    private static final String BLOCK = """
            {
              "primaryModel": "anthropic/test-model",
              "escalationModel": "openai/test-model-large",
              "escalateBelow": 0.6,
              "concurrencyWait": "500ms",
              "providers": {
                "anthropic": {"type": "anthropic", "baseUrl": "https://anthropic.example", "apiKey": "test-key",
                              "connectTimeout": "5s"},
                "openai": {"type": "openai", "baseUrl": "https://openai.example/v1", "apiKey": "test-key",
                           "answerMode": "json_schema", "maxConcurrency": 4, "requestTimeout": "PT20S"}
              },
              "models": {
                "anthropic/test-model": {"inputPerMillionUsd": 3, "outputPerMillionUsd": 15},
                "openai/test-model-large": {"inputPerMillionUsd": 1.25, "outputPerMillionUsd": 10,
                                            "cacheReadPerMillionUsd": 0.125}
              }
            }
            """;

    private static LlmSettings read(String json) throws Exception {
        return WireJson.MAPPER.readValue(json, LlmSettings.class);
    }

    @Test
    void bindsCamelCaseWithDefaults() throws Exception {
        LlmSettings settings = read(BLOCK);

        assertThat(settings.problems()).isEmpty();
        assertThat(settings.getEscalateBelow()).isEqualTo(0.6);
        assertThat(settings.getConcurrencyWait()).isEqualTo(Duration.ofMillis(500));
        ProviderSettings anthropic = settings.getProviders().get("anthropic");
        assertThat(anthropic.getType()).isEqualTo(ProviderType.ANTHROPIC);
        assertThat(anthropic.getAnthropicVersion()).isEqualTo("2023-06-01");
        assertThat(anthropic.getAnswerMode()).isEqualTo(AnswerMode.TOOL);
        assertThat(anthropic.getMaxConcurrency()).isEqualTo(16);
        assertThat(anthropic.getMaxOutputTokens()).isEqualTo(1024);
        assertThat(anthropic.getMaxAnswerBytes()).isEqualTo(65536);
        assertThat(anthropic.getConnectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(anthropic.keyVariable()).isEqualTo("ANTHROPIC_API_KEY");
        ProviderSettings openai = settings.getProviders().get("openai");
        assertThat(openai.getAnswerMode()).isEqualTo(AnswerMode.JSON_SCHEMA);
        assertThat(openai.getRequestTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(openai.keyVariable()).isEqualTo("OPENAI_API_KEY");
        assertThat(settings.getModels().get("openai/test-model-large").effectiveCacheRead())
                .isEqualByComparingTo(new BigDecimal("0.125"));
    }

    @Test
    void noEscalationModelMeansNoEscalation() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.setEscalationModel(null);

        assertThat(settings.problems()).isEmpty();
    }

    @Test
    void anEmptyKeyNamesTheVariableToSet() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.getProviders().get("anthropic").setApiKey("");
        settings.getProviders().get("openai").setApiKey(null);
        settings.getProviders().get("openai").setApiKeyVariable("LITELLM_KEY");

        assertThat(settings.problems()).containsExactly(
                "provider 'anthropic' has no API key: set ANTHROPIC_API_KEY",
                "provider 'openai' has no API key: set LITELLM_KEY");
    }

    @Test
    void aProviderNoRouteUsesMayGoWithoutAKey() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.setEscalationModel(null);
        settings.getProviders().get("openai").setApiKey("");

        assertThat(settings.problems()).isEmpty();
    }

    @Test
    void anUnknownProviderInAModelName() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.setPrimaryModel("mistral/test-model");

        assertThat(settings.problems()).anySatisfy(p -> assertThat(p).isEqualTo(
                "llm.primaryModel 'mistral/test-model' names provider 'mistral', which is not configured "
                        + "(configured: anthropic, openai)"));
    }

    @Test
    void aRouteModelWithoutAPrice() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.setEscalationModel("anthropic/unpriced");

        assertThat(settings.problems()).containsExactly("llm.escalationModel 'anthropic/unpriced' has no price: "
                + "add it under llm.models with inputPerMillionUsd and outputPerMillionUsd");
    }

    @Test
    void malformedNamesAndValues() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.setPrimaryModel("test-model");
        settings.setEscalateBelow(1.5);
        settings.getProviders().get("openai").setBaseUrl("openai.example");
        settings.getProviders().get("openai").setMaxConcurrency(0);
        settings.getModels().put("nowhere/test-model", Fixtures.price("1", "1"));

        assertThat(settings.problems()).containsExactlyInAnyOrder(
                "llm.escalateBelow is 1.5: it must be between 0 and 1",
                "provider 'openai' has baseUrl 'openai.example': it must start with http:// or https://",
                "provider 'openai' has maxConcurrency 0: at least 1",
                "model 'nowhere/test-model' under llm.models names provider 'nowhere', which is not configured "
                        + "(configured: anthropic, openai)",
                "llm.primaryModel is 'test-model': write it as <provider>/<model>, e.g. anthropic/<model>");
    }

    @Test
    void aMissingPrimaryModel() {
        assertThat(new LlmSettings().problems()).containsExactly("llm.primaryModel is not set");
    }

    @Test
    void theSynthesizerRefusesSettingsWithProblems() throws Exception {
        LlmSettings settings = read(BLOCK);
        settings.getProviders().get("anthropic").setApiKey(" ");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LlmSynthesizer(settings, new TestClock(), Ticker.SYSTEM,
                        new io.prometheus.client.CollectorRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set ANTHROPIC_API_KEY");
    }
}
