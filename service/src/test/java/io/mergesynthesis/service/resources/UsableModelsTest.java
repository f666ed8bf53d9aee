package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A model this replica cannot call (its provider's key is not set here) cannot be an org's model: the settings
 * API refuses it naming the variable to set, stores nothing, and {@code GET /v1/models} says which models are
 * usable.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class UsableModelsTest {

    static final TestApp APP = TestApp.apiOnly(
            ConfigOverride.config("llm.providers.anthropic.type", "anthropic"),
            ConfigOverride.config("llm.providers.anthropic.baseUrl", "http://127.0.0.1:9/"),
            ConfigOverride.config("llm.providers.local.type", "openai"),
            ConfigOverride.config("llm.providers.local.baseUrl", "http://127.0.0.1:9/v1"),
            ConfigOverride.config("llm.providers.local.apiKey", "sk-local-0a1b2c3d"),
            ConfigOverride.config("llm.providers.local.apiKeyVariable", "LOCAL_LLM_API_KEY"),
            ConfigOverride.config("llm.primaryModel", "local/small"),
            ConfigOverride.config("llm.models.local/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.local/small.outputPerMillionUsd", "5"),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.outputPerMillionUsd", "15"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void aModelWhoseProviderHasNoKeyIsRefusedNamingTheVariableAndNothingIsStored() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> refused = put(org, "{\"model\": \"anthropic/claude-sonnet-4-5\", \"monthly_budget_usd\": 25}");

        assertThat(refused.statusCode()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("model");
        assertThat(problem.get("message").asText()).contains("anthropic/claude-sonnet-4-5")
                .contains("set ANTHROPIC_API_KEY").contains("GET /v1/models");
        long stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(stored).isZero();

        assertThat(put(org, "{\"model\": \"local/small\", \"monthly_budget_usd\": 25}").statusCode())
                .as("a usable model is accepted").isEqualTo(200);
    }

    @Test
    void theModelListSaysWhichModelsAreUsableHere() {
        JsonNode models = Seed.parse(APP.get(APP.token(Role.ORG_ADMIN, UUID.randomUUID()), "/v1/models").body())
                .get("models");

        assertThat(models).hasSize(2);
        JsonNode keyless = models.get(0);
        assertThat(keyless.get("name").asText()).isEqualTo("anthropic/claude-sonnet-4-5");
        assertThat(keyless.get("usable").asBoolean()).isFalse();
        assertThat(keyless.get("key_variable").asText()).isEqualTo("ANTHROPIC_API_KEY");
        assertThat(keyless.get("unusable_reason").asText()).contains("has no API key").contains("ANTHROPIC_API_KEY");
        JsonNode usable = models.get(1);
        assertThat(usable.get("name").asText()).isEqualTo("local/small");
        assertThat(usable.get("usable").asBoolean()).isTrue();
        assertThat(usable.get("unusable_reason").isNull()).isTrue();
        assertThat(usable.get("key_variable").isNull()).isTrue();
        assertThat(models.toString()).as("no key in the list").doesNotContain("sk-local-0a1b2c3d");
    }

    private static HttpResponse<String> put(UUID org, String json) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platform)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }
}
