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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An org's weight, its share of the claims while others wait too, is set with {@code PUT
 * /v1/orgs/{org_id}/synthesis} (a whole number from 1 to 1000, 1 when left out) and shown by its {@code GET}; a
 * pending conflict shows how many of its own org's conflicts are ahead of it, whatever other orgs have waiting.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OrgWeightAndPlaceInLineTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void aWeightIsStoredShownAndResetByAPutThatLeavesItOut() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> saved = put(org, "{\"weight\": 3}");
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        assertThat(Seed.parse(saved.body()).get("weight").asInt()).isEqualTo(3);
        assertThat(Seed.parse(get(org).body()).get("weight").asInt()).isEqualTo(3);

        HttpResponse<String> replaced = put(org, "{\"monthly_budget_usd\": 5}");
        assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
        assertThat(Seed.parse(replaced.body()).get("weight").asInt()).as("the PUT replaces every setting")
                .isEqualTo(1);
    }

    @Test
    void anOrgWithoutSettingsHasWeightOne() {
        HttpResponse<String> shown = get(UUID.randomUUID());

        assertThat(shown.statusCode()).as(shown.body()).isEqualTo(200);
        assertThat(Seed.parse(shown.body()).get("weight").asInt()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-2", "1.5", "1001", "\"2\"", "null", "true", "4294967297"})
    void aWeightThatIsNotAWholeNumberFrom1To1000IsRefusedAndNothingIsStored(String weight) {
        UUID org = UUID.randomUUID();

        HttpResponse<String> refused = put(org, "{\"weight\": " + weight + "}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("weight");
        assertThat(problem.get("message").asText())
                .isEqualTo("must be a whole number from 1 to 1000 (got " + weight + ")");
        long stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(stored).isZero();
    }

    @Test
    void aPendingConflictShowsHowManyOfItsOwnOrgsConflictsAreAheadOfIt() {
        UUID org = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        // Another org's older backlog does not count: the claims share the workers between orgs.
        insert(other, 50, "-2 hours");
        List<UUID> ours = insert(org, 3, "-1 hour");
        String admin = APP.token(Role.ORG_ADMIN, org);

        for (int i = 0; i < ours.size(); i++) {
            JsonNode synthesis = Seed.parse(getConflict(admin, ours.get(i)).body()).get("synthesis");
            assertThat(synthesis.get("state").asText()).isEqualTo("pending");
            assertThat(synthesis.get("ahead_in_org").asInt()).as("conflict %d of the org", i).isEqualTo(i);
        }

        APP.database().jdbi().useHandle(h -> h.createUpdate("""
                UPDATE policy_conflicts SET synthesis_state = 'in_progress', lease_owner = 'elsewhere',
                       lease_expires_at = now() + interval '1 minute', not_before = now() + interval '1 minute'
                WHERE id = :id""").bind("id", ours.get(0)).execute());
        assertThat(Seed.parse(getConflict(admin, ours.get(0)).body()).get("synthesis").has("ahead_in_org"))
                .as("shown only while the conflict waits").isFalse();
        assertThat(Seed.parse(getConflict(admin, ours.get(2)).body()).at("/synthesis/ahead_in_org").asInt())
                .as("the one being worked on is no longer ahead").isEqualTo(1);
    }

    /** {@code count} pending conflicts of {@code org}, a second apart, the first {@code since} ago; oldest first. */
    private static List<UUID> insert(UUID org, int count, String since) {
        return APP.database().jdbi().withHandle(h -> h.createQuery("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), :org, 'line-' || i, 'tool_call', 'jira.read', '[]', 'p1', now(),
                               now() + CAST(:since AS interval) + i * interval '1 second'
                        FROM generate_series(1, :count) AS i
                        RETURNING id, not_before""")
                .bind("org", org).bind("count", count).bind("since", since)
                .map((rs, ctx) -> new Object[] {rs.getObject("id", UUID.class), rs.getTimestamp("not_before")})
                .list().stream()
                .sorted(java.util.Comparator.comparing(row -> (java.sql.Timestamp) row[1]))
                .map(row -> (UUID) row[0])
                .toList());
    }

    private static HttpResponse<String> getConflict(String token, UUID id) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts/" + id))
                .header("Authorization", "Bearer " + token).GET().build());
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
