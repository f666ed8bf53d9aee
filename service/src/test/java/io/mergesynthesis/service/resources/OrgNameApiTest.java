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
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code PUT /v1/orgs/{org_id}/name}: the platform names an org, the name is validated and unique, and each change
 * is an {@code org_named} event of that org's stream; a refused name changes nothing and writes no event.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OrgNameApiTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void theCallerNamesAnOrgAndRenamesItWithAnEventEachTime() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> first = put(platform, org, "{\"name\": \"Globex\"}");
        HttpResponse<String> second = put(platform, org, "{\"name\": \"Globex Research\"}");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
        JsonNode body = Seed.parse(second.body());
        assertThat(body.get("org_id").asText()).isEqualTo(org.toString());
        assertThat(body.get("name").asText()).isEqualTo("Globex Research");
        assertThat(storedName(org)).isEqualTo("Globex Research");
        List<String> events = APP.database().jdbi().withHandle(h -> h.createQuery("""
                        SELECT (details ->> 'name') || ' / ' || coalesce(details ->> 'previous_name', '-')
                          FROM conflict_events
                         WHERE event_type = 'org_named' AND org_id = :org AND conflict_id IS NULL ORDER BY id""")
                .bind("org", org).mapTo(String.class).list());
        assertThat(events).containsExactly("Globex / -", "Globex Research / Globex");
    }

    @Test
    void aBadNameIsRefusedSayingWhyAndNothingIsStored() {
        UUID org = UUID.randomUUID();
        String tooLong = "n".repeat(81);
        List<String> bodies = List.of("{\"name\": \"\"}", "{\"name\": \" Padded\"}",
                "{\"name\": \"" + tooLong + "\"}", "{\"name\": \"Tab\\there\"}", "{\"name\": \"Bell\\u0007\"}");
        List<String> reasons = List.of("required", "space", "81 characters", "control characters (found U+0009)",
                "control characters (found U+0007)");
        for (int i = 0; i < bodies.size(); i++) {
            HttpResponse<String> refused = put(platform, org, bodies.get(i));
            assertThat(refused.statusCode()).as(bodies.get(i)).isEqualTo(422);
            JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
            assertThat(problem.get("field").asText()).isEqualTo("name");
            assertThat(problem.get("message").asText()).contains(reasons.get(i));
        }
        for (String malformed : List.of("{}", "{\"name\": 7}", "{\"name\": \"A\", \"other\": 1}", "[]")) {
            assertThat(put(platform, org, malformed).statusCode()).as(malformed).isEqualTo(400);
        }
        assertThat(put(platform, UUID.randomUUID().toString().toUpperCase().substring(1), "{\"name\": \"X\"}")
                .statusCode()).isEqualTo(400);
        assertThat(storedName(org)).isNull();
        assertThat(eventsOf(org)).isZero();
    }

    @Test
    void aNameAnotherOrgBearsIsAConflictIgnoringCase() {
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        assertThat(put(platform, first, "{\"name\": \"Initech\"}").statusCode()).isEqualTo(200);

        HttpResponse<String> taken = put(platform, second, "{\"name\": \"INITECH\"}");

        assertThat(taken.statusCode()).isEqualTo(409);
        assertThat(Seed.parse(taken.body()).get("message").asText()).contains("already named");
        assertThat(storedName(second)).isNull();
        // The org that bears it may change its case.
        assertThat(put(platform, first, "{\"name\": \"INITECH\"}").statusCode()).isEqualTo(200);
    }

    @Test
    void onlyThePlatformNamesOrgs() {
        UUID org = UUID.randomUUID();
        for (Role role : List.of(Role.ORG_ADMIN, Role.INGEST, Role.SIEM)) {
            HttpResponse<String> refused = put(APP.token(role, org), org, "{\"name\": \"Mine\"}");
            assertThat(refused.statusCode()).as(role.wireName()).isEqualTo(403);
        }
        assertThat(put(null, org, "{\"name\": \"Mine\"}").statusCode()).isEqualTo(401);
        assertThat(storedName(org)).isNull();
    }

    private static String storedName(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery("SELECT name FROM org_names WHERE org_id = :org")
                .bind("org", org).mapTo(String.class).findOne().orElse(null));
    }

    private static long eventsOf(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM conflict_events WHERE org_id = :org")
                .bind("org", org).mapTo(Long.class).one());
    }

    private static HttpResponse<String> put(String token, UUID org, String json) {
        return put(token, org.toString(), json);
    }

    private static HttpResponse<String> put(String token, String org, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/name"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return APP.send(request.build());
    }
}
