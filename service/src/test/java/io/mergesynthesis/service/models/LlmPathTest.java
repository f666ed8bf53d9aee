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
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole product on the LLM path: the service with {@code synthesis.synthesizer: llm}, its worker pool and
 * API, against the stand-in provider over real HTTP on loopback. Each paid call is in the ledger once, with the
 * cost the configured prices give; a rate limit costs no attempt; a budget holds conflicts back until it rises.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LlmPathTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().latency(Duration.ofMillis(5)));
    static final TestApp APP = TestApp.onStandIn(STAND_IN,
            ConfigOverride.config("synthesis.budgetRecheck", "500ms"),
            ConfigOverride.config("llm.escalationModel", "standin/large"),
            ConfigOverride.config("llm.models.standin/large.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.standin/large.outputPerMillionUsd", "15"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @BeforeEach
    void confidentAndCheap() {
        STAND_IN.behaviour().confidence(0.9).confidenceFor("small", 0.9).confidenceFor("large", 0.9)
                .usage(1000, 200, 0, 0).failNext(0, Failure.SERVER_ERROR);
    }

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void anEscalatedMergeRecordsBothPassesOnceAtTheConfiguredPrices() throws Exception {
        STAND_IN.behaviour().confidenceFor("small", 0.4).confidenceFor("large", 0.95);
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);
        UUID id = Seed.conflict(APP, platform, org, "esc-1", "jira.create_issue");
        JsonNode conflict = awaitState(admin, id, "done");

        JsonNode calls = conflict.at("/synthesis/calls");
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).get("pass").asText()).isEqualTo("primary");
        assertThat(calls.get(0).get("model").asText()).isEqualTo("standin/small");
        assertThat(calls.get(0).get("outcome").asText()).isEqualTo("discarded");
        assertThat(calls.get(1).get("pass").asText()).isEqualTo("escalation");
        assertThat(calls.get(1).get("outcome").asText()).isEqualTo("stored");
        // 1000 in and 200 out: 1000 x 1 + 200 x 5 = 2000 micro-dollars; at the larger model's prices 6000.
        assertThat(calls.get(0).get("cost_usd").decimalValue()).isEqualByComparingTo("0.002");
        assertThat(calls.get(1).get("cost_usd").decimalValue()).isEqualByComparingTo("0.006");
        assertThat(conflict.at("/synthesis/suggested_merge/produced_by/model").asText()).isEqualTo("large");
        assertThat(conflict.at("/synthesis/attempts").asInt()).isEqualTo(1);

        JsonNode usage = Seed.parse(APP.get(admin, "/v1/usage").body());
        assertThat(usage.get("calls").asLong()).isEqualTo(2);
        assertThat(usage.get("cost_usd").decimalValue()).isEqualByComparingTo("0.008");
        assertThat(ledgerRows(org)).isEqualTo(2);
    }

    @Test
    void aRateLimitedCallCostsNoAttemptAndTheConflictIsSynthesizedAfterIt() throws Exception {
        STAND_IN.behaviour().failNext(1, Failure.RATE_LIMITED);
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);
        UUID id = Seed.conflict(APP, platform, org, "rl-1", "github.delete_repo");
        JsonNode conflict = awaitState(admin, id, "done");

        assertThat(conflict.at("/synthesis/attempts").asInt()).as("the rate-limited try was not counted: %s", conflict).isEqualTo(1);
        assertThat(conflict.at("/synthesis/attempt_history/0/outcome").asText()).isEqualTo("deferred");
        assertThat(conflict.at("/synthesis/attempt_history/0/reason").asText()).isEqualTo("rate_limited");
        JsonNode calls = conflict.at("/synthesis/calls");
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).get("outcome").asText()).isEqualTo("rate_limited");
        assertThat(calls.get(1).get("outcome").asText()).isEqualTo("stored");
    }

    @Test
    void aSpentBudgetHoldsConflictsWithoutCallsUntilThePlatformRaisesIt() throws Exception {
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);
        HttpResponse<String> set = put("/v1/orgs/" + org + "/synthesis", "{\"model\": null, \"monthly_budget_usd\": 0}");
        assertThat(set.statusCode()).isEqualTo(200);
        long requestsBefore = STAND_IN.stats().requests();
        UUID id = Seed.conflict(APP, platform, org, "budget-1", "drive.share");
        awaitState(admin, id, "waiting_budget");
        assertThat(STAND_IN.stats().requests()).as("no call for an org without budget").isEqualTo(requestsBefore);

        HttpResponse<String> raised = put("/v1/orgs/" + org + "/synthesis",
                "{\"model\": \"standin/large\", \"monthly_budget_usd\": 5}");
        assertThat(raised.statusCode()).isEqualTo(200);
        JsonNode done = awaitState(admin, id, "done");
        assertThat(done.at("/synthesis/attempts").asInt()).isEqualTo(1);
        assertThat(done.at("/synthesis/calls/0/model").asText()).as("the org's own model").isEqualTo("standin/large");

        JsonNode settings = Seed.parse(APP.get(admin, "/v1/orgs/" + org + "/synthesis").body());
        assertThat(settings.get("monthly_budget_usd").decimalValue()).isEqualByComparingTo(new BigDecimal("5"));
        assertThat(settings.get("month_to_date_cost_usd").decimalValue()).isEqualByComparingTo("0.006");

        // Each change is an event naming who made it: here the platform's token.
        List<JsonNode> changes = APP.get(platform, "/v1/events?format=ndjson&org_id=" + org).body().lines()
                .map(Seed::parse)
                .filter(e -> "org_settings_changed".equals(e.at("/merge_synthesis/event_type").asText()))
                .toList();
        assertThat(changes).hasSize(2);
        assertThat(changes.get(1).at("/merge_synthesis/model").asText()).isEqualTo("standin/large");
        assertThat(changes.get(1).at("/merge_synthesis/requested_by").asText()).isEqualTo("token");
        assertThat(changes.get(1).at("/user/id").asText()).isNotBlank();
    }

    @Test
    void settingsRefuseUnknownModelsAndOtherOrgsAdmins() {
        UUID org = UUID.randomUUID();
        HttpResponse<String> unknown = put("/v1/orgs/" + org + "/synthesis", "{\"model\": \"standin/huge\"}");
        assertThat(unknown.statusCode()).isEqualTo(422);
        assertThat(unknown.body()).contains("standin/small").contains("standin/large");
        assertThat(APP.get(APP.token(Role.ORG_ADMIN, UUID.randomUUID()), "/v1/orgs/" + org + "/synthesis")
                .statusCode()).isEqualTo(404);
        assertThat(APP.get(APP.token(Role.ORG_ADMIN, org), "/v1/orgs/" + org + "/synthesis").statusCode())
                .isEqualTo(200);
        HttpResponse<String> byAdmin = APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + APP.token(Role.ORG_ADMIN, org))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"monthly_budget_usd\": 100}")).build());
        assertThat(byAdmin.statusCode()).as("only the platform sets budgets").isEqualTo(403);
        JsonNode models = Seed.parse(APP.get(platform, "/v1/models").body());
        assertThat(models.get("primary").asText()).isEqualTo("standin/small");
        assertThat(models.get("models")).extracting(m -> m.get("name").asText())
                .containsExactly("standin/large", "standin/small");
    }

    private static HttpResponse<String> put(String path, String json) {
        return APP.send(HttpRequest.newBuilder(APP.uri(path))
                .header("Authorization", "Bearer " + platform)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private static long ledgerRows(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM llm_usage_events WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
    }

    private static JsonNode awaitState(String admin, UUID id, String state) {
        return Wait.forValue("conflict " + id + " in state " + state, Duration.ofSeconds(30),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()),
                conflict -> state.equals(conflict.at("/synthesis/state").asText()));
    }
}
