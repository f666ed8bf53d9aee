package io.mergesynthesis.service.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DropwizardExtensionsSupport.class)
class InboxActionsTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    private final UUID org = UUID.randomUUID();
    private String admin;
    private String ingest;
    private Jdbi db;

    @BeforeEach
    void tokens() {
        admin = APP.token(Role.ORG_ADMIN, org);
        ingest = APP.token(Role.INGEST, org);
        db = APP.database().jdbi();
    }

    private UUID conflict() {
        return Seed.conflict(APP, ingest, org, "key-" + UUID.randomUUID(), "jira.create_issue");
    }

    private HttpResponse<String> resolve(UUID id, String resolution, String note) {
        String body = note == null ? "{\"resolution\": %s}".formatted(Seed.quote(resolution))
                : "{\"resolution\": %s, \"note\": %s}".formatted(Seed.quote(resolution), Seed.quote(note));
        return APP.post(admin, "/v1/conflicts/" + id + "/resolve", body);
    }

    @Test
    void acknowledgingTwiceChangesTheConflictOnceAndWritesOneEvent() {
        UUID id = conflict();
        var first = APP.post(admin, "/v1/conflicts/" + id + "/acknowledge", "");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        JsonNode inbox = Seed.parse(first.body()).get("inbox");
        assertThat(inbox.get("status").asText()).isEqualTo("acknowledged");
        assertThat(inbox.get("acknowledged_at").isNull()).isFalse();
        String stateAfterFirst = Seed.inboxState(db, id);

        var second = APP.post(admin, "/v1/conflicts/" + id + "/acknowledge", "");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(Seed.parse(second.body()).get("inbox")).isEqualTo(inbox);
        assertThat(Seed.inboxState(db, id)).isEqualTo(stateAfterFirst);
        assertThat(Seed.eventCount(db, id, "conflict_acknowledged")).isEqualTo(1);
    }

    @Test
    void acknowledgingAResolvedConflictIsANoOp() {
        UUID id = conflict();
        assertThat(resolve(id, "manual", null).statusCode()).isEqualTo(200);
        String before = Seed.inboxState(db, id);

        var ack = APP.post(admin, "/v1/conflicts/" + id + "/acknowledge", "");
        assertThat(ack.statusCode()).isEqualTo(200);
        assertThat(Seed.parse(ack.body()).at("/inbox/status").asText()).isEqualTo("resolved");
        assertThat(Seed.inboxState(db, id)).isEqualTo(before);
        assertThat(Seed.eventCount(db, id, "conflict_acknowledged")).isZero();
    }

    @Test
    void theFirstResolutionStandsRepeatingItIsANoOpAndAnotherIsRefused() {
        UUID id = conflict();
        var first = resolve(id, "rejected_suggestion", "not what we want");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        JsonNode inbox = Seed.parse(first.body()).get("inbox");
        assertThat(inbox.get("status").asText()).isEqualTo("resolved");
        assertThat(inbox.get("resolution").asText()).isEqualTo("rejected_suggestion");
        assertThat(inbox.get("note").asText()).isEqualTo("not what we want");
        String stored = Seed.inboxState(db, id);

        var again = resolve(id, "rejected_suggestion", "a different note");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(Seed.parse(again.body()).at("/inbox/note").asText()).isEqualTo("not what we want");

        var other = resolve(id, "manual", null);
        assertThat(other.statusCode()).isEqualTo(409);
        JsonNode refused = Seed.parse(other.body());
        assertThat(refused.get("message").asText()).contains("already resolved as rejected_suggestion");
        assertThat(refused.at("/conflict/inbox/resolution").asText()).isEqualTo("rejected_suggestion");

        assertThat(Seed.inboxState(db, id)).isEqualTo(stored);
        assertThat(Seed.eventCount(db, id, "conflict_resolved")).isEqualTo(1);
    }

    @Test
    void acceptingNeedsASuggestedMergeAndTheApiNeverWritesOne() {
        UUID id = conflict();
        String before = Seed.inboxState(db, id);
        var early = resolve(id, "accepted_suggestion", null);
        assertThat(early.statusCode()).isEqualTo(409);
        assertThat(Seed.parse(early.body()).get("message").asText()).contains("no suggested merge yet");
        assertThat(Seed.parse(early.body()).at("/conflict/synthesis/state").asText()).isEqualTo("pending");
        assertThat(Seed.inboxState(db, id)).isEqualTo(before);
        assertThat(Seed.eventCount(db, id, "conflict_resolved")).isZero();

        Seed.synthesized(db, id);
        var accepted = resolve(id, "accepted_suggestion", "applied as suggested");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
        JsonNode view = Seed.parse(accepted.body());
        assertThat(view.at("/inbox/resolution").asText()).isEqualTo("accepted_suggestion");
        assertThat(view.at("/synthesis/state").asText()).isEqualTo("done");
        assertThat(view.at("/synthesis/suggested_merge/schema_version").asInt()).isEqualTo(1);
        assertThat(Seed.eventCount(db, id, "conflict_resolved")).isEqualTo(1);
    }

    @Test
    void theResolvedEventSaysWhatWasDecidedAndByWhichToken() {
        UUID id = conflict();
        assertThat(resolve(id, "manual", "fixed by hand").statusCode()).isEqualTo(200);
        String details = db.withHandle(h -> h.createQuery(
                        "SELECT details::text FROM conflict_events WHERE conflict_id = :id AND event_type = 'conflict_resolved'")
                .bind("id", id).mapTo(String.class).one());
        JsonNode d = Seed.parse(details);
        assertThat(d.get("resolution").asText()).isEqualTo("manual");
        assertThat(d.get("resolution_note").asText()).isEqualTo("fixed by hand");
        assertThat(d.get("target").asText()).isEqualTo("jira.create_issue");
        assertThat(d.get("token_id").asText()).matches("[0-9a-f-]{36}");
    }

    /**
     * Accepting hands the merge to the policy engine through the stream: the event carries the merged rule and each
     * losing rule's action as the stored merge says them; a resolution that is not an acceptance carries none.
     */
    @Test
    void anAcceptedResolutionsEventCarriesTheMergeTheEngineApplies() {
        UUID id = conflict();
        db.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET synthesis_state = 'done', attempts = 1, synthesized_at = now(),
                               suggested_merge = CAST(:merge AS jsonb) WHERE id = :id""")
                .bind("id", id).bind("merge", """
                        {"schema_version": 1, "resolved_effect": "deny",
                         "merged_rule": {"scope": "org", "scope_id": "%s", "effect": "deny", "target": "jira.*",
                                         "based_on_policy_id": "p1"},
                         "loser_actions": [{"policy_id": "p2", "action": "narrow", "detail": "allow only jira.view"}],
                         "rationale": "kept out of the event", "confidence": 0.9}""".formatted(org)).execute());
        assertThat(resolve(id, "accepted_suggestion", null).statusCode()).isEqualTo(200);
        JsonNode d = resolvedEvent(id);
        assertThat(d.get("resolved_effect").asText()).isEqualTo("deny");
        assertThat(d.at("/merged_rule/effect").asText()).isEqualTo("deny");
        assertThat(d.at("/merged_rule/target").asText()).isEqualTo("jira.*");
        assertThat(d.at("/merged_rule/scope").asText()).isEqualTo("org");
        assertThat(d.at("/merged_rule/scope_id").asText()).isEqualTo(org.toString());
        assertThat(d.at("/merged_rule/based_on_policy_id").asText()).isEqualTo("p1");
        assertThat(d.get("loser_actions")).hasSize(1);
        assertThat(d.at("/loser_actions/0/policy_id").asText()).isEqualTo("p2");
        assertThat(d.at("/loser_actions/0/action").asText()).isEqualTo("narrow");
        assertThat(d.at("/loser_actions/0/detail").asText()).isEqualTo("allow only jira.view");
        assertThat(d.has("rationale")).isFalse();

        UUID rejected = conflict();
        db.useHandle(h -> h.createUpdate("UPDATE policy_conflicts SET synthesis_state = 'done', "
                + "suggested_merge = '{\"merged_rule\": {\"effect\": \"deny\"}}' WHERE id = :id").bind("id", rejected).execute());
        assertThat(resolve(rejected, "rejected_suggestion", null).statusCode()).isEqualTo(200);
        JsonNode r = resolvedEvent(rejected);
        assertThat(r.has("merged_rule")).isFalse();
        assertThat(r.has("loser_actions")).isFalse();
    }

    private JsonNode resolvedEvent(UUID id) {
        return Seed.parse(db.withHandle(h -> h.createQuery(
                        "SELECT details::text FROM conflict_events WHERE conflict_id = :id AND event_type = 'conflict_resolved'")
                .bind("id", id).mapTo(String.class).one()));
    }

    /**
     * Sixteen admins resolve the same conflict at once, each with its own note and one of the three
     * resolutions. Exactly one changes the row (its own note is what is stored); everyone who picked the same
     * resolution as that winner gets the no-op 200, everyone else 409 with the winner's state.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void ofConcurrentResolutionsExactlyOneWins() throws Exception {
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 5; round++) {
                UUID id = conflict();
                Seed.synthesized(db, id);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<HttpResponse<String>>> futures = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    String resolution = Resolution.values()[i % 3].wireName();
                    String note = "admin-" + i;
                    futures.add(pool.submit(() -> {
                        start.await();
                        return resolve(id, resolution, note);
                    }));
                }
                start.countDown();
                List<HttpResponse<String>> responses = new ArrayList<>();
                for (Future<HttpResponse<String>> f : futures) {
                    responses.add(f.get(30, TimeUnit.SECONDS));
                }

                JsonNode stored = Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()).get("inbox");
                String winningResolution = stored.get("resolution").asText();
                String winningNote = stored.get("note").asText();
                int winner = Integer.parseInt(winningNote.substring("admin-".length()));
                assertThat(responses.get(winner).statusCode()).isEqualTo(200);

                for (int i = 0; i < threads; i++) {
                    HttpResponse<String> r = responses.get(i);
                    JsonNode body = Seed.parse(r.body());
                    if (Resolution.values()[i % 3].wireName().equals(winningResolution)) {
                        assertThat(r.statusCode()).as("admin-%d: %s", i, r.body()).isEqualTo(200);
                        assertThat(body.at("/inbox/note").asText()).isEqualTo(winningNote);
                    } else {
                        assertThat(r.statusCode()).as("admin-%d: %s", i, r.body()).isEqualTo(409);
                        assertThat(body.at("/conflict/inbox/resolution").asText()).isEqualTo(winningResolution);
                        assertThat(body.at("/conflict/inbox/note").asText()).isEqualTo(winningNote);
                    }
                }
                assertThat(Seed.eventCount(db, id, "conflict_resolved")).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
