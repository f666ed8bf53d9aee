package io.mergesynthesis.service.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica whose workers write merges with the stub serves no model: an org's model is refused with the reason,
 * rather than stored and silently ignored, while the default (no model of its own) and budgets still work.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StubReplicaOrgModelTest {

    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.synthesizer", "stub"),
            ConfigOverride.config("llm.providers.local.type", "openai"),
            ConfigOverride.config("llm.providers.local.baseUrl", "http://127.0.0.1:9/v1"),
            ConfigOverride.config("llm.providers.local.apiKey", "local"),
            ConfigOverride.config("llm.primaryModel", "local/stand-in"),
            ConfigOverride.config("llm.models.local/stand-in.inputPerMillionUsd", "0"),
            ConfigOverride.config("llm.models.local/stand-in.outputPerMillionUsd", "0"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void aConfiguredModelIsRefusedSayingTheStubServesNoneAndNothingIsStored() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> refused = APP.put(platform, "/v1/orgs/" + org + "/synthesis",
                "{\"model\": \"local/stand-in\", \"monthly_budget_usd\": 25}");

        assertThat(refused.statusCode()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("model");
        assertThat(problem.get("message").asText()).contains("local/stand-in", "stub synthesizer",
                "serves no model", "synthesis.synthesizer: llm");
        assertThat(storedSettings(org)).isZero();
    }

    @Test
    void theDefaultModelAndABudgetAreStillAccepted() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> saved = APP.put(platform, "/v1/orgs/" + org + "/synthesis",
                "{\"model\": null, \"monthly_budget_usd\": 25}");

        assertThat(saved.statusCode()).isEqualTo(200);
        JsonNode settings = Seed.parse(saved.body());
        assertThat(settings.get("model").isNull()).isTrue();
        assertThat(settings.get("effective_model").isNull()).as("the stub calls no model").isTrue();
        assertThat(storedSettings(org)).isEqualTo(1);
    }

    @Test
    void theModelListSaysNoModelIsUsableHereAndWhy() {
        JsonNode catalog = Seed.parse(APP.get(platform, "/v1/models").body());

        JsonNode model = catalog.at("/models/0");
        assertThat(model.get("name").asText()).isEqualTo("local/stand-in");
        assertThat(model.get("usable").asBoolean()).isFalse();
        assertThat(model.get("unusable_reason").asText()).contains("stub synthesizer");
        assertThat(catalog.get("primary").isNull()).isTrue();
    }

    private static long storedSettings(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
    }
}
