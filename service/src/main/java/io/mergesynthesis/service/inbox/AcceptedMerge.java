package io.mergesynthesis.service.inbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What an accepted suggestion hands to the policy engine through the event stream: the merged rule, the resolved
 * effect and what happens to each losing rule. Accepting changes no rule here; the engine reads the
 * {@code conflict_resolved} event and applies these, so the event must carry them whole rather than point at a
 * merge the engine would have to fetch.
 */
final class AcceptedMerge {

    private AcceptedMerge() {
    }

    /**
     * Adds {@code resolved_effect}, {@code merged_rule} (the same five fields a {@code merge_synthesized} event
     * carries) and {@code loser_actions} to {@code details}. A stored merge is always JSON the worker wrote;
     * fields it lacks are left out rather than invented.
     */
    static void addTo(ObjectNode details, String suggestedMergeJson, ObjectMapper json) {
        if (suggestedMergeJson == null) {
            return;
        }
        JsonNode merge;
        try {
            merge = json.readTree(suggestedMergeJson);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored suggested merge is not JSON", e);
        }
        copy(merge, details, "resolved_effect");
        JsonNode rule = merge.path("merged_rule");
        if (rule.isObject()) {
            ObjectNode merged = details.putObject("merged_rule");
            for (String field : new String[] {"effect", "target", "scope", "scope_id", "based_on_policy_id"}) {
                copy(rule, merged, field);
            }
        }
        ArrayNode actions = details.putArray("loser_actions");
        for (JsonNode action : merge.path("loser_actions")) {
            ObjectNode one = actions.addObject();
            for (String field : new String[] {"policy_id", "action", "detail"}) {
                copy(action, one, field);
            }
        }
    }

    private static void copy(JsonNode from, ObjectNode to, String field) {
        JsonNode value = from.get(field);
        if (value != null) {
            to.set(field, value);
        }
    }
}
