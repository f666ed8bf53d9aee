package io.mergesynthesis.service.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Who made a change, in the words a page shows: a person by name, else email, else subject; a token as
 * "token" and its label, else its id. Read from the JSON a conflict's row keeps ({@code acknowledged_by},
 * {@code resolved_by}).
 */
final class ActorWords {

    private ActorWords() {
    }

    /** The words, or null when no one is recorded (the change predates the record, or nothing changed yet). */
    static String of(String actorJson, ObjectMapper json) {
        if (actorJson == null) {
            return null;
        }
        JsonNode actor;
        try {
            actor = json.readTree(actorJson);
        } catch (JsonProcessingException e) {
            return null;
        }
        String name = text(actor, "name");
        if ("token".equals(text(actor, "type"))) {
            return "token " + (name != null ? name : text(actor, "id"));
        }
        if (name != null) {
            return name;
        }
        String email = text(actor, "email");
        return email != null ? email : text(actor, "id");
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isTextual() || value.textValue().isBlank() ? null : value.textValue();
    }
}
