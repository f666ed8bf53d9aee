package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** GET /v1/conflicts searches and filters by action through the inbox's own use case, and names bad values. */
@ExtendWith(DropwizardExtensionsSupport.class)
class ConflictSearchApiTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void aPrefixOfTheTargetOrTheEngineKeyFindsTheConflictAndOnlyTheOrgsOwn() {
        UUID org = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        String admin = APP.token(Role.ORG_ADMIN, org);
        UUID github = Seed.conflict(APP, ingest, org, "eng-gh-1", "github.delete_repo");
        UUID jira = Seed.conflict(APP, ingest, org, "eng-jira-1", "jira.create_issue");
        Seed.conflict(APP, APP.token(Role.INGEST, other), other, "eng-gh-2", "github.delete_repo");

        assertThat(ids(admin, "?q=github.")).containsExactly(github.toString());
        assertThat(ids(admin, "?q=eng-jira")).containsExactly(jira.toString());
        assertThat(ids(admin, "?q=p2")).as("a rule's policy id").hasSize(2);
        assertThat(ids(admin, "?q=GitHub")).isEmpty();
        assertThat(ids(admin, "?q=github.&action=data_export")).isEmpty();
        assertThat(ids(admin, "?q=github.&action=tool_call")).containsExactly(github.toString());
    }

    @Test
    void anUnknownActionOrAnOverlongSearchIsA400ThatSaysWhy() {
        String admin = APP.token(Role.ORG_ADMIN, UUID.randomUUID());
        var action = APP.get(admin, "/v1/conflicts?action=delete");
        assertThat(action.statusCode()).isEqualTo(400);
        assertThat(Seed.parse(action.body()).get("message").asText()).contains("action must be one of tool_call");
        var longSearch = APP.get(admin, "/v1/conflicts?q=" + "x".repeat(201));
        assertThat(longSearch.statusCode()).isEqualTo(400);
        assertThat(Seed.parse(longSearch.body()).get("message").asText()).contains("q is 201 characters long");
        var nul = APP.get(admin, "/v1/conflicts?q=" + URLEncoder.encode("a\u0000", StandardCharsets.UTF_8));
        assertThat(nul.statusCode()).isEqualTo(400);
    }

    private static List<String> ids(String token, String query) {
        var response = APP.get(token, "/v1/conflicts" + query);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        for (JsonNode c : Seed.parse(response.body()).get("conflicts")) {
            ids.add(c.get("id").asText());
        }
        return ids;
    }
}
