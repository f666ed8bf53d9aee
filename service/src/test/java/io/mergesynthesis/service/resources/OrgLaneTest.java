package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An org's lane is set with {@code PUT /v1/orgs/{org_id}/synthesis} ({@code interactive}, {@code batch} or
 * {@code auto}; interactive when left out) and shown by its {@code GET}; any other value is refused, naming the
 * words allowed, and nothing is stored.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OrgLaneTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void aLaneIsStoredShownAndResetByAPutThatLeavesItOut() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> saved = put(org, "{\"lane\": \"batch\"}");
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        assertThat(Seed.parse(saved.body()).get("lane").asText()).isEqualTo("batch");
        assertThat(Seed.parse(get(org).body()).get("lane").asText()).isEqualTo("batch");

        assertThat(Seed.parse(put(org, "{\"lane\": \"auto\"}").body()).get("lane").asText()).isEqualTo("auto");
        HttpResponse<String> replaced = put(org, "{\"weight\": 2}");
        assertThat(Seed.parse(replaced.body()).get("lane").asText()).as("the PUT replaces every setting")
                .isEqualTo("interactive");
    }

    @Test
    void anOrgWithoutSettingsIsInteractive() {
        assertThat(Seed.parse(get(UUID.randomUUID()).body()).get("lane").asText()).isEqualTo("interactive");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"bulk\"", "\"BATCH\"", "\"\"", "null", "1", "[\"batch\"]"})
    void aLaneOutsideTheThreeWordsIsRefusedNamingThemAndNothingIsStored(String lane) {
        UUID org = UUID.randomUUID();

        HttpResponse<String> refused = put(org, "{\"lane\": " + lane + "}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("lane");
        assertThat(problem.get("message").asText())
                .isEqualTo("must be one of interactive, batch, auto (got " + lane + ")");
        long stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(stored).isZero();
    }

    @Test
    void anItemWhoseLaneIsNotBatchIsRefusedAndNothingIsStored() {
        UUID org = UUID.randomUUID();
        String report = Seed.report(org, "lane-1", "jira.x");
        // An item cannot ask out of its org's batch lane, nor for auto, which is an org's setting.
        report = report.substring(0, report.lastIndexOf('}')) + ", \"lane\": \"interactive\"}";

        HttpResponse<String> refused = APP.post(platform, "/v1/conflicts", report);

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("lane");
        assertThat(problem.get("message").asText()).startsWith("must be batch, or left out");
        long stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(stored).isZero();
    }

    private static HttpResponse<String> get(UUID org) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platform).GET().build());
    }

    private static HttpResponse<String> put(UUID org, String json) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platform)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }
}
