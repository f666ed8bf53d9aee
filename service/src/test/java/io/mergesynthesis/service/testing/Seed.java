package io.mergesynthesis.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** Test data through the real API, and the few looks behind it that only a test may take. */
public final class Seed {

    public static final ObjectMapper JSON = new ObjectMapper();

    private Seed() {
    }

    /** A conflict report body for {@code org} with the given dedup key and target. */
    public static String report(UUID org, String dedupKey, String target) {
        return """
                {"org_id": "%s", "dedup_key": %s, "action": "tool_call", "target": %s,
                 "rules": [{"policy_id": "p1", "scope": "org", "scope_id": "%s", "effect": "deny", "target": "*"},
                           {"policy_id": "p2", "scope": "member", "scope_id": "m", "effect": "allow", "target": %s}],
                 "winner_policy_id": "p1", "detected_at": "2026-11-20T10:15:00Z"}"""
                .formatted(org, quote(dedupKey), quote(target), org, quote(target));
    }

    /** Ingests one conflict with an ingest token of its org and returns its id. */
    public static UUID conflict(TestApp app, String ingestToken, UUID org, String dedupKey, String target) {
        var response = app.post(ingestToken, "/v1/conflicts", report(org, dedupKey, target));
        assertThat(response.statusCode()).as(response.body()).isIn(200, 201);
        return UUID.fromString(parse(response.body()).get("id").asText());
    }

    /** Plays the worker: writes a suggested merge as the superuser, which row-level security does not hold. */
    public static void synthesized(Jdbi superuser, UUID conflictId) {
        superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET synthesis_state = 'done', attempts = 1,
                               suggested_merge = '{"schema_version": 1}'::jsonb, synthesized_at = now()
                         WHERE id = :id""")
                .bind("id", conflictId).execute());
    }

    public static long eventCount(Jdbi superuser) {
        return superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM conflict_events").mapTo(Long.class).one());
    }

    public static long eventCount(Jdbi superuser, UUID conflictId, String type) {
        return superuser.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM conflict_events WHERE conflict_id = :id AND event_type = :type")
                .bind("id", conflictId).bind("type", type).mapTo(Long.class).one());
    }

    /** Every inbox column of one row, as text, to compare before and after a refused request. */
    public static String inboxState(Jdbi superuser, UUID conflictId) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT concat_ws('|', inbox_status, acknowledged_at, resolved_at, resolution,
                                         resolution_note, synthesis_state, suggested_merge, updated_at)
                          FROM policy_conflicts WHERE id = :id""")
                .bind("id", conflictId).mapTo(String.class).one());
    }

    public static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
