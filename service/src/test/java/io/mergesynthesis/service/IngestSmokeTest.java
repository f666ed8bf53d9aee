package io.mergesynthesis.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DropwizardExtensionsSupport.class)
class IngestSmokeTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void storesAConflictAndReadsItBack() {
        UUID org = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        String admin = APP.token(Role.ORG_ADMIN, org);
        String body = """
                {"org_id": "%s", "dedup_key": "k1", "action": "tool_call", "target": "jira.create_issue",
                 "rules": [{"policy_id": "p1", "scope": "org", "scope_id": "o", "effect": "deny", "target": "jira.*"},
                           {"policy_id": "p2", "scope": "member", "scope_id": "m", "effect": "allow", "target": "jira.create_issue"}],
                 "winner_policy_id": "p1", "detected_at": "2026-11-20T10:15:00Z"}""".formatted(org);
        var created = APP.post(ingest, "/v1/conflicts", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        var list = APP.get(admin, "/v1/conflicts");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).contains("\"dedup_key\":\"k1\"");
    }
}
