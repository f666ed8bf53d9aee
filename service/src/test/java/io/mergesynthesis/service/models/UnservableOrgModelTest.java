package io.mergesynthesis.service.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An org model stored before this replica lost the means to serve it (its provider's key is not set here, or the
 * model left the configuration) holds the org's conflicts back: no attempt counted, no call made, a history line
 * saying why, and the health check naming how many orgs and the variable to set.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UnservableOrgModelTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().confidence(0.9));
    static final TestApp APP = TestApp.onStandIn(STAND_IN,
            ConfigOverride.config("llm.providers.anthropic.type", "anthropic"),
            ConfigOverride.config("llm.providers.anthropic.baseUrl", STAND_IN.anthropicBaseUrl()),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.outputPerMillionUsd", "15"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void aStoredModelWithoutItsKeyHoldsTheOrgsConflictsBackUncountedAndUncalled() throws Exception {
        UUID org = UUID.randomUUID();
        storeModel(org, "anthropic/claude-sonnet-4-5");
        long requestsBefore = STAND_IN.stats().requests();

        UUID id = Seed.conflict(APP, platform, org, "keyless-1", "jira.create_issue");
        JsonNode conflict = awaitHistory(org, id);

        assertThat(conflict.at("/synthesis/state").asText()).isEqualTo("pending");
        assertThat(conflict.at("/synthesis/attempts").asInt()).as("no attempt counted: %s", conflict).isZero();
        JsonNode line = conflict.at("/synthesis/attempt_history/0");
        assertThat(line.get("outcome").asText()).isEqualTo("deferred");
        assertThat(line.get("reason").asText()).isEqualTo("model_unusable");
        assertThat(line.get("detail").asText()).contains("anthropic/claude-sonnet-4-5").contains("set ANTHROPIC_API_KEY")
                .contains("no call made");
        assertThat(conflict.at("/synthesis/calls")).isEmpty();
        assertThat(STAND_IN.stats().requests()).as("requests to any provider").isEqualTo(requestsBefore);

        UUID other = UUID.randomUUID();
        UUID served = Seed.conflict(APP, platform, other, "keyed-1", "jira.create_issue");
        awaitState(other, served, "done");
    }

    @Test
    void theHealthCheckNamesTheOrgsAndTheVariableWhileAnyStoredModelCannotBeServed() {
        APP.database().jdbi().useHandle(h -> h.execute("DELETE FROM org_synthesis_settings"));
        assertThat(health().body()).contains("\"org-models\":{\"healthy\":true");

        storeModel(UUID.randomUUID(), "anthropic/claude-sonnet-4-5");
        storeModel(UUID.randomUUID(), "anthropic/claude-sonnet-4-5");
        storeModel(UUID.randomUUID(), "standin/retired");
        storeModel(UUID.randomUUID(), "standin/small");

        HttpResponse<String> health = health();
        assertThat(health.statusCode()).isEqualTo(500);
        JsonNode check = Seed.parse(health.body()).get("org-models");
        assertThat(check.get("healthy").asBoolean()).isFalse();
        assertThat(check.get("message").asText()).startsWith("3 orgs have a model this replica cannot serve")
                .contains("set ANTHROPIC_API_KEY")
                .contains("anthropic/claude-sonnet-4-5")
                .contains("(2 orgs)")
                .contains("standin/retired")
                .contains("(1 org)")
                .doesNotContain("'standin/small'");

        APP.database().jdbi().useHandle(h -> h.execute("DELETE FROM org_synthesis_settings"));
        assertThat(health().body()).contains("\"org-models\":{\"healthy\":true");
    }

    /** As the platform set it before the key was removed, or before the model left the configuration. */
    private static void storeModel(UUID org, String model) {
        APP.database().jdbi().useHandle(h -> h.createUpdate(
                        "INSERT INTO org_synthesis_settings (org_id, model, updated_at) VALUES (:org, :model, now())")
                .bind("org", org).bind("model", model).execute());
    }

    private static HttpResponse<String> health() {
        return APP.getAdmin("/healthcheck");
    }

    private static JsonNode awaitHistory(UUID org, UUID id) {
        String admin = APP.token(Role.ORG_ADMIN, org);
        return Wait.forValue("an attempt history for conflict " + id, Duration.ofSeconds(30),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()),
                conflict -> conflict.at("/synthesis/attempt_history").size() > 0);
    }

    private static void awaitState(UUID org, UUID id, String state) {
        String admin = APP.token(Role.ORG_ADMIN, org);
        Wait.forValue("conflict " + id + " in state " + state, Duration.ofSeconds(30),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()).at("/synthesis/state").asText(),
                state::equals);
    }
}
