package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** GET /v1/conflicts/counts: the caller's org alone, every state and status named, and only org admins ask. */
@ExtendWith(DropwizardExtensionsSupport.class)
class ConflictCountsApiTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void anOrgReadsItsOwnCountsWithEveryStateAndStatusNamed() {
        UUID org = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        UUID first = Seed.conflict(APP, ingest, org, "count-1", "github.delete_repo");
        Seed.conflict(APP, ingest, org, "count-2", "jira.create_issue");
        Seed.conflict(APP, APP.token(Role.INGEST, other), other, "count-3", "jira.create_issue");
        String admin = APP.token(Role.ORG_ADMIN, org);
        assertThat(APP.post(admin, "/v1/conflicts/" + first + "/acknowledge", "").statusCode()).isEqualTo(200);

        var response = APP.get(admin, "/v1/conflicts/counts");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode counts = Seed.parse(response.body());
        assertThat(counts.get("total").asLong()).isEqualTo(2);
        assertThat(counts.get("synthesis_state").size()).isEqualTo(SynthesisState.values().length);
        assertThat(counts.get("synthesis_state").get("pending").asLong()).isEqualTo(2);
        assertThat(counts.get("synthesis_state").get("not_needed").asLong()).isZero();
        assertThat(counts.get("inbox_status").size()).isEqualTo(InboxStatus.values().length);
        assertThat(counts.get("inbox_status").get("open").asLong()).isEqualTo(1);
        assertThat(counts.get("inbox_status").get("acknowledged").asLong()).isEqualTo(1);

        JsonNode theirs = Seed.parse(APP.get(APP.token(Role.ORG_ADMIN, other), "/v1/conflicts/counts").body());
        assertThat(theirs.get("total").asLong()).isEqualTo(1);
    }

    @Test
    void onlyAnOrgAdminReadsCounts() {
        var ingest = APP.get(APP.token(Role.INGEST, UUID.randomUUID()), "/v1/conflicts/counts");
        assertThat(ingest.statusCode()).isEqualTo(403);
        assertThat(APP.get("msk_not-a-token", "/v1/conflicts/counts").statusCode()).isEqualTo(401);
    }
}
