package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole service with its pool: a conflict ingested over HTTP comes back with a suggested merge, the check it
 * passed, and an event that says what the merge does.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PoolEndToEndTest {

    static final TestApp APP = TestApp.create(ConfigOverride.config("synthesis.workers", "2"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    private final ObjectMapper json = new ObjectMapper();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anIngestedConflictGetsASuggestedMergeAndIsCounted() throws Exception {
        UUID org = UUID.randomUUID();
        String body = """
                {"org_id": "%s", "dedup_key": "e2e-1", "action": "tool_call", "target": "jira.create_issue",
                 "rules": [{"policy_id": "p1", "scope": "org", "scope_id": "%s", "effect": "deny", "target": "jira.*"},
                           {"policy_id": "p2", "scope": "member", "scope_id": "m", "effect": "allow", "target": "jira.create_issue"}],
                 "winner_policy_id": "p1", "detected_at": "2026-11-20T10:15:00Z"}""".formatted(org, org);
        var created = APP.post(APP.token(Role.INGEST, org), "/v1/conflicts", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = json.readTree(created.body()).get("id").asText();

        String admin = APP.token(Role.ORG_ADMIN, org);
        JsonNode[] conflict = new JsonNode[1];
        Wait.until("the merge to appear over HTTP", Duration.ofSeconds(30), () -> {
            var response = APP.get(admin, "/v1/conflicts/" + id);
            try {
                conflict[0] = json.readTree(response.body());
            } catch (Exception e) {
                throw new AssertionError(response.body(), e);
            }
            return "done".equals(conflict[0].path("synthesis").path("state").asText());
        });
        JsonNode merge = conflict[0].path("synthesis").path("suggested_merge");
        assertThat(merge.path("conflict_id").asText()).isEqualTo(id);
        assertThat(merge.path("produced_by").path("synthesizer").asText()).isEqualTo("stub");
        assertThat(conflict[0].path("synthesis").path("attempts").asInt()).isEqualTo(1);
        JsonNode check = conflict[0].path("synthesis").path("check");
        assertThat(check.path("result").asText()).as(check.toString()).isEqualTo("passed");
        assertThat(check.path("version").asInt()).isEqualTo(MergeCheck.VERSION);
        assertThat(check.path("current_version").asInt()).isEqualTo(MergeCheck.VERSION);
        assertThat(check.findValuesAsText("name")).containsExactly("matches_the_conflict", "keeps_the_winner",
                "grants_no_new_access", "removes_the_conflict", "precise");

        // What a SIEM receives of the merge: its rule, layer, owner, and the check it passed.
        String siem = APP.token(Role.SIEM, org);
        JsonNode event = json.readTree(APP.get(siem, "/v1/events?format=ndjson").body().lines()
                .filter(line -> line.contains("merge-synthesized")).findFirst().orElseThrow())
                .path("merge_synthesis");
        assertThat(event.path("resolved_effect").asText()).isEqualTo("deny");
        assertThat(event.path("merged_rule").path("effect").asText()).isEqualTo("deny");
        assertThat(event.path("merged_rule").path("target").asText()).isEqualTo("jira.*");
        assertThat(event.path("merged_rule").path("scope").asText()).isEqualTo("org");
        assertThat(event.path("merged_rule").path("scope_id").asText()).isEqualTo(org.toString());
        assertThat(event.path("merged_rule").path("based_on_policy_id").asText()).isEqualTo("p1");
        assertThat(event.path("check").path("result").asText()).isEqualTo("passed");
        assertThat(event.path("check").path("version").asInt()).isEqualTo(MergeCheck.VERSION);
        String cef = APP.get(siem, "/v1/events?format=cef").body().lines()
                .filter(line -> line.contains("|merge_synthesized|")).findFirst().orElseThrow();
        assertThat(cef).contains(" mergeSynthesisMergedEffect=deny ", " mergeSynthesisMergedTarget=jira.* ",
                " mergeSynthesisMergedScope=org ", " mergeSynthesisMergedScopeId=" + org + " ",
                " mergeSynthesisCheckResult=passed ").endsWith(" mergeSynthesisCheckVersion=" + MergeCheck.VERSION);

        String metrics = APP.getAdmin("/metrics").body();
        assertThat(metrics).contains("synthesis_attempts_total{outcome=\"success\",} 1.0");
        assertThat(metrics).contains("synthesis_failures_total{reason=\"unknown\",} 0.0");
        assertThat(metrics).contains("synthesis_duration_seconds_bucket{le=\"65.536\",} 1.0");
        assertThat(metrics).contains("synthesis_pending_conflicts 0.0");

        var health = APP.getAdmin("/healthcheck");
        assertThat(json.readTree(health.body()).path("synthesis-pool").path("healthy").asBoolean())
                .as(health.body()).isTrue();
    }
}
