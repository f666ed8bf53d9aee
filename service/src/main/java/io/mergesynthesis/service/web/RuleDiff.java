package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rule set before and after a suggested merge, rule by rule: each rule in conflict kept, narrowed (to what the
 * merge says), removed or rewritten as the merged rule, then the merged rule itself unless it is the winner as it
 * was. Every row names its change
 * in a word and a symbol as well as a colour, so the diff reads the same without colour.
 *
 * @param lowConfidence the merge's confidence is under the threshold at which a second model is asked
 */
record RuleDiff(List<Row> rows, String confidence, String threshold, boolean lowConfidence) {

    /** One line of the diff. {@code change} is the word and the style class: kept, narrowed, removed, merged. */
    record Row(String symbol, String change, String policyId, String layer, String before, String after) {
    }

    static RuleDiff of(List<ConflictDetail.RuleRow> rules, JsonNode merge, double escalateBelow) {
        Map<String, JsonNode> actions = new HashMap<>();
        for (JsonNode action : merge.path("loser_actions")) {
            actions.put(text(action, "policy_id"), action);
        }
        JsonNode merged = merge.path("merged_rule");
        String basedOn = text(merged, "based_on_policy_id");
        String mergedText = ruleText(text(merged, "effect"), text(merged, "target"), text(merged, "scope"),
                text(merged, "scope_id"));
        List<Row> rows = new ArrayList<>();
        boolean mergedIsTheWinnerAsItWas = false;
        for (ConflictDetail.RuleRow rule : rules) {
            String before = ruleText(rule.effect(), rule.target(), rule.scope(), rule.scopeId());
            JsonNode action = actions.get(rule.policyId());
            String kind = action == null ? null : text(action, "action");
            if (rule.policyId() != null && rule.policyId().equals(basedOn) && action == null) {
                boolean same = before.equals(mergedText);
                mergedIsTheWinnerAsItWas |= same;
                rows.add(same ? new Row("=", "kept", rule.policyId(), rule.scope(), before,
                        before + " (the merged rule, unchanged)")
                        : new Row("~", "rewritten", rule.policyId(), rule.scope(), before,
                                "replaced by the merged rule below"));
            } else if ("remove".equals(kind)) {
                rows.add(new Row("−", "removed", rule.policyId(), rule.scope(), before, "removed: " + detail(action)));
            } else if ("narrow".equals(kind)) {
                rows.add(new Row("~", "narrowed", rule.policyId(), rule.scope(), before,
                        "narrowed to: " + detail(action)));
            } else if ("keep".equals(kind)) {
                rows.add(new Row("=", "kept", rule.policyId(), rule.scope(), before, before));
            } else {
                rows.add(new Row("=", "kept", rule.policyId(), rule.scope(), before, before + " (the merge names "
                        + "no action for it)"));
            }
        }
        // A merged rule that is the winner word for word is already on its row: listing it again as new would
        // show one rule as both kept and added (the platform default with no loser is always this case).
        if (!mergedIsTheWinnerAsItWas) {
            rows.add(new Row("+", "merged", basedOn == null ? null : "from " + basedOn, text(merged, "scope"), null,
                    mergedText));
        }
        JsonNode confidence = merge.path("confidence");
        boolean low = confidence.isNumber() && confidence.asDouble() < escalateBelow;
        return new RuleDiff(rows, confidence.isNumber() ? twoPlaces(confidence.asDouble()) : null,
                twoPlaces(escalateBelow), low);
    }

    private static String ruleText(String effect, String target, String scope, String scopeId) {
        return effect + " on " + target + " (" + scope + (scopeId == null ? "" : " " + scopeId) + ")";
    }

    private static String detail(JsonNode action) {
        String detail = text(action, "detail");
        return detail == null || detail.isBlank() ? "no detail given" : detail;
    }

    private static String twoPlaces(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asText();
    }
}
