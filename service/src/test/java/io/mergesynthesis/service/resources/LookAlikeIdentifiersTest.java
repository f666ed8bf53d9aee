package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.TextSamples;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Identifiers that look alike or hold what cannot be seen are refused wherever an identifier enters, a 422 naming
 * the field with nothing stored; well-formed identifiers in any script are kept exactly as sent. Random inputs of
 * each refused kind, seeded so that a failure can be run again.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class LookAlikeIdentifiersTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final int PER_KIND = 40;

    /** Each ingest field that holds an identifier, and a report with a given text in that field. */
    static final Map<String, BiFunction<UUID, String, String>> INGEST_FIELDS = new LinkedHashMap<>();

    static {
        INGEST_FIELDS.put("dedup_key", (org, text) -> report(org, text, "pol-1", "member-7"));
        INGEST_FIELDS.put("rules[1].policy_id", (org, text) -> report(org, "key", text, "member-7"));
        INGEST_FIELDS.put("rules[1].scope_id", (org, text) -> report(org, "key", "pol-1", text));
    }

    static String report(UUID org, String dedupKey, String memberPolicy, String memberId) {
        return """
                {"org_id": "%s", "dedup_key": %s, "action": "tool_call", "target": "jira.create_issue",
                 "rules": [{"policy_id": "pol-org", "scope": "org", "scope_id": "%s", "effect": "deny", "target": "jira.*"},
                           {"policy_id": %s, "scope": "member", "scope_id": %s, "effect": "allow",
                            "target": "jira.create_issue"}],
                 "winner_policy_id": "pol-org", "detected_at": "2026-11-20T10:15:00Z"}"""
                .formatted(org, TextSamples.json(dedupKey), org, TextSamples.json(memberPolicy),
                        TextSamples.json(memberId));
    }

    @Test
    void everyRefusedKindInEveryIdentifierFieldIs422NamingItAndStoresNothing() {
        UUID org = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        Random random = new Random(3806);
        Map<String, Function<Random, String>> kinds = new LinkedHashMap<>();
        TextSamples.REFUSED.forEach((name, points) -> kinds.put(name, r -> TextSamples.withOne(r, points, 30)));
        kinds.put("a space at an end", r -> TextSamples.withEdgeSpace(r, 30));
        for (Map.Entry<String, BiFunction<UUID, String, String>> field : INGEST_FIELDS.entrySet()) {
            for (Map.Entry<String, Function<Random, String>> kind : kinds.entrySet()) {
                List<String> reports = new ArrayList<>();
                List<String> sent = new ArrayList<>();
                for (int i = 0; i < PER_KIND; i++) {
                    String bad = kind.getValue().apply(random);
                    sent.add(TextSamples.json(bad));
                    reports.add(field.getValue().apply(org, bad));
                }
                HttpResponse<String> answer = APP.post(ingest, "/v1/conflicts",
                        "{\"conflicts\": [" + String.join(",", reports) + "]}");
                assertThat(answer.statusCode()).as("%s in %s: %s", kind.getKey(), field.getKey(), answer.body())
                        .isEqualTo(422);
                Set<String> named = new HashSet<>(Seed.parse(answer.body()).get("errors").findValuesAsText("field"));
                for (int i = 0; i < PER_KIND; i++) {
                    assertThat(named).as("%s in %s: %s", kind.getKey(), field.getKey(), sent.get(i))
                            .contains("conflicts[" + i + "]." + field.getKey());
                }
            }
        }
        assertThat(storedConflicts(org)).isZero();
    }

    @Test
    void theReportedLookAlikesAreRefused() {
        UUID org = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        for (String lookAlike : List.of("pol\u20111", "pol-1 ", "pol-1\u200b", "\u202epol-1")) {
            String body = report(org, "look-alike", lookAlike, "member-7")
                    .replace("\"winner_policy_id\": \"pol-org\"", "\"winner_policy_id\": \"pol-1\"");
            HttpResponse<String> answer = APP.post(ingest, "/v1/conflicts", body);
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(422);
            assertThat(answer.body()).contains("\"field\":\"rules[1].policy_id\"");
        }
        assertThat(storedConflicts(org)).isZero();
    }

    @Test
    void wellFormedIdentifiersInAnyScriptAreKeptExactly() {
        UUID org = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        Random random = new Random(1906);
        List<String> keys = new ArrayList<>();
        List<String> reports = new ArrayList<>();
        Set<String> distinct = new HashSet<>();
        while (keys.size() < 200) {
            String key = TextSamples.wellFormed(random, 30);
            if (distinct.add(key)) {
                keys.add(key);
                reports.add(report(org, key, TextSamples.wellFormed(random, 30), TextSamples.wellFormed(random, 30)));
            }
        }
        HttpResponse<String> answer = APP.post(ingest, "/v1/conflicts",
                "{\"conflicts\": [" + String.join(",", reports) + "]}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        List<String> stored = APP.database().transactions().inOrg(org, h -> h.createQuery(
                "SELECT dedup_key FROM policy_conflicts").mapTo(String.class).list());
        assertThat(stored).containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void orgNamesFollowTheSameRule() {
        String platform = APP.token(Role.PLATFORM, null);
        Random random = new Random(41);
        for (Map.Entry<String, int[]> kind : TextSamples.REFUSED.entrySet()) {
            for (int i = 0; i < 5; i++) {
                UUID org = UUID.randomUUID();
                String bad = i == 4 ? TextSamples.withEdgeSpace(random, 30)
                        : TextSamples.withOne(random, kind.getValue(), 30);
                HttpResponse<String> answer = putName(platform, org, "{\"name\": " + TextSamples.json(bad) + "}");
                assertThat(answer.statusCode()).as("%s: %s", kind.getKey(), answer.body()).isEqualTo(422);
                JsonNode problems = Seed.parse(answer.body()).get("errors");
                assertThat(problems.findValuesAsText("field")).containsExactly("name");
                assertThat(storedName(org)).isEmpty();
            }
        }
        for (String name : List.of("株式会社テスト", "Рога и копыта", "Müller GmbH")) {
            UUID org = UUID.randomUUID();
            HttpResponse<String> answer = putName(platform, org, "{\"name\": " + TextSamples.json(name) + "}");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(storedName(org)).containsExactly(name);
        }
    }

    private static HttpResponse<String> putName(String token, UUID org, String body) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/name"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static List<String> storedName(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery("SELECT name FROM org_names WHERE org_id = :org")
                .bind("org", org).mapTo(String.class).list());
    }

    private static long storedConflicts(UUID org) {
        return APP.database().transactions().inOrg(org, h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one());
    }
}
