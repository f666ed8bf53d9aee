package io.mergesynthesis.service.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.EventStream.StoredEvent;
import java.util.Iterator;
import java.util.Map;

/**
 * NDJSON with Elastic Common Schema names, as nested objects: {@code @timestamp}, {@code ecs.version},
 * {@code event.*}, {@code organization.id}. What ECS has no field for lives under {@code merge_synthesis}:
 * the conflict's fixed fields first, then whatever the event's own details add.
 */
final class EcsLines implements EventLines {

    static final String ECS_VERSION = "8.11.0";
    static final String DATASET = "merge_synthesis.conflict_events";

    /** Every line terminator escaped, so that each event stays one line for every reader. */
    private static final ObjectMapper JSON = OneLineJson.MAPPER;

    @Override
    public String line(StoredEvent e) {
        EventVocabulary words = EventVocabulary.of(e.eventType());
        ObjectNode root = JSON.createObjectNode();
        root.put("@timestamp", e.occurredAt().toString());
        root.putObject("ecs").put("version", ECS_VERSION);
        ObjectNode event = root.putObject("event");
        event.put("kind", "event");
        event.putArray("category").add("configuration");
        event.putArray("type").add(words.ecsType());
        event.put("action", words.action());
        event.put("outcome", words.outcome());
        event.put("id", Long.toString(e.id()));
        event.put("severity", words.severity());
        event.put("module", "merge_synthesis");
        event.put("dataset", DATASET);
        if (e.orgId() != null) {
            // A platform token's events belong to no org.
            root.putObject("organization").put("id", e.orgId().toString());
        }

        JsonNode details = read(e.detailsJson());
        user(root, details);

        ObjectNode ours = root.putObject("merge_synthesis");
        ours.put("event_type", e.eventType());
        ours.put("conflict_id", e.conflictId() == null ? null : e.conflictId().toString());
        ours.put("dedup_key", e.dedupKey());
        ours.put("action", e.action());
        ours.put("target", e.target());
        ours.put("winner_policy_id", e.winnerPolicyId());
        for (Iterator<Map.Entry<String, JsonNode>> it = details.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!ours.has(field.getKey())) {
                ours.set(field.getKey(), field.getValue());
            }
        }
        return write(root);
    }

    /**
     * ECS {@code user.*}: who made the change. A person by subject, email and name; a token by its id, and its
     * label as the name; nothing for the worker's own events or the command line.
     */
    private static void user(ObjectNode root, JsonNode details) {
        String id = text(details, "user_id");
        String email = text(details, "user_email");
        String name = text(details, "user_name");
        if (id == null) {
            id = text(details, "token_id");
            name = text(details, "token_label");
        }
        if (id == null) {
            return;
        }
        ObjectNode user = root.putObject("user").put("id", id);
        if (email != null) {
            user.put("email", email);
        }
        if (name != null) {
            user.put("name", name);
        }
    }

    private static String text(JsonNode details, String field) {
        JsonNode value = details.get(field);
        return value == null || !value.isTextual() ? null : value.textValue();
    }

    @Override
    public String trailer(String nextCursor) {
        return write(JSON.createObjectNode().put("next_cursor", nextCursor));
    }

    private static JsonNode read(String json) {
        try {
            return json == null ? JSON.createObjectNode() : JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored event details are not JSON", e);
        }
    }

    private static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise an event", e);
        }
    }
}
