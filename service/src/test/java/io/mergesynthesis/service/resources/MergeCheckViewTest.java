package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One conflict's view says what the merge check says of its merge: passed with the check's version, not checked
 * for a merge stored before the check existed, none while no merge is stored. (The worker's own merges, which
 * pass, are in {@code PoolEndToEndTest}.)
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class MergeCheckViewTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    private final UUID org = UUID.randomUUID();
    private final String admin = APP.token(Role.ORG_ADMIN, org);
    private final String ingest = APP.token(Role.INGEST, org);

    @Test
    void aMergeStoredBeforeTheCheckExistedIsNotChecked() {
        UUID id = Seed.conflict(APP, ingest, org, "before-the-check", "jira.create_issue");
        // What a row stored by an earlier version looks like: a merge and no check version.
        Seed.synthesized(APP.database().jdbi(), id);

        JsonNode check = check(id);
        assertThat(check.path("result").asText()).isEqualTo("not_checked");
        assertThat(check.path("version").isNull()).as(check.toString()).isTrue();
        assertThat(check.path("current_version").asInt()).isEqualTo(MergeCheck.VERSION);
    }

    @Test
    void aMergeWithACheckVersionPassedThatVersionAndTheViewSaysWhatItProves() {
        UUID id = Seed.conflict(APP, ingest, org, "checked", "jira.create_issue");
        Seed.synthesized(APP.database().jdbi(), id);
        APP.database().jdbi().useHandle(h -> h.createUpdate(
                "UPDATE policy_conflicts SET merge_check_version = 1 WHERE id = :id").bind("id", id).execute());

        JsonNode check = check(id);
        assertThat(check.path("result").asText()).isEqualTo("passed");
        assertThat(check.path("version").asInt()).isEqualTo(1);
        JsonNode properties = check.path("properties");
        assertThat(properties).hasSize(MergeFinding.Property.values().length);
        for (int i = 0; i < properties.size(); i++) {
            MergeFinding.Property property = MergeFinding.Property.values()[i];
            assertThat(properties.get(i).path("name").asText()).isEqualTo(property.wireName());
            assertThat(properties.get(i).path("description").asText()).isEqualTo(property.description());
        }
    }

    @Test
    void noMergeYetIsNoneAndAPageOfConflictsCarriesNoCheckBlock() {
        UUID id = Seed.conflict(APP, ingest, org, "waiting", "jira.create_issue");

        JsonNode check = check(id);
        assertThat(check.path("result").asText()).isEqualTo("none");
        assertThat(check.path("version").isNull()).isTrue();
        JsonNode page = Seed.parse(APP.get(admin, "/v1/conflicts?limit=5").body());
        assertThat(page.at("/conflicts/0/synthesis").has("check")).isFalse();
    }

    private JsonNode check(UUID id) {
        var response = APP.get(admin, "/v1/conflicts/" + id);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Seed.parse(response.body()).at("/synthesis/check");
    }
}
