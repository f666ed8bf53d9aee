package io.mergesynthesis.llm;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a model's answer text into a {@link ModelAnswer} for one conflict, or says exactly what is wrong with
 * it. The worker validates the finished merge against the published schema too, but only this check knows the
 * conflict: which policy ids exist, which rules lost, and that each of them gets exactly one action.
 */
final class AnswerCheck {

    static final Set<String> ANSWER_FIELDS =
            Set.of("resolved_effect", "merged_rule", "loser_actions", "rationale", "confidence");
    private static final Set<String> RULE_FIELDS = Set.of("scope", "scope_id", "effect", "target", "based_on_policy_id");
    private static final Set<String> ACTION_FIELDS = Set.of("policy_id", "action", "detail");

    /** A Markdown code fence, which chat models like to wrap JSON in even when told not to. */
    private static final Pattern FENCE = Pattern.compile("```[A-Za-z]*\\s*(.*?)```", Pattern.DOTALL);

    private static final ObjectReader STRICT = WireJson.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private AnswerCheck() {
    }

    static ModelAnswer check(String answerText, ConflictSnapshot conflict, int maxAnswerBytes) throws AnswerRejected {
        int size = answerText.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxAnswerBytes) {
            throw new AnswerRejected("the answer is " + size + " bytes, more than the " + maxAnswerBytes + " allowed");
        }
        return check(parse(answerText), conflict);
    }

    /** The JSON object in the text: bare, inside a code fence, or between the first and last brace. */
    static JsonNode parse(String answerText) throws AnswerRejected {
        String text = answerText.strip();
        Matcher fence = FENCE.matcher(text);
        if (!text.startsWith("{") && fence.find()) {
            text = fence.group(1).strip();
        } else if (!text.startsWith("{") && text.indexOf('{') >= 0 && text.lastIndexOf('}') > text.indexOf('{')) {
            text = text.substring(text.indexOf('{'), text.lastIndexOf('}') + 1);
        }
        try {
            JsonNode node = STRICT.readTree(text);
            if (node == null || !node.isObject()) {
                throw new AnswerRejected("the answer is not a JSON object: " + excerpt(answerText));
            }
            // The answer is JSON inside JSON: its own escapes can spell out a NUL the body's cleaning never saw.
            return ProviderText.clean(node);
        } catch (JsonProcessingException e) {
            throw new AnswerRejected("the answer is not JSON (" + e.getOriginalMessage() + "): " + excerpt(answerText));
        }
    }

    static ModelAnswer check(JsonNode answer, ConflictSnapshot conflict) throws AnswerRejected {
        exactFields("the answer", answer, ANSWER_FIELDS);
        Map<String, PolicyRule> rules = new LinkedHashMap<>();
        conflict.rules().forEach(rule -> rules.put(rule.policyId(), rule));

        Effect resolved = effect("resolved_effect", answer.get("resolved_effect"));
        MergedRule merged = mergedRule(answer.get("merged_rule"), rules);
        List<LoserAction> actions = loserActions(answer.get("loser_actions"), conflict, rules);
        String rationale = text("rationale", answer.get("rationale"));
        JsonNode confidence = answer.get("confidence");
        if (!confidence.isNumber() || confidence.asDouble() < 0 || confidence.asDouble() > 1) {
            throw new AnswerRejected("confidence must be a number from 0 to 1, not " + excerpt(confidence.toString()));
        }
        return new ModelAnswer(resolved, merged, actions, rationale, confidence.asDouble());
    }

    private static MergedRule mergedRule(JsonNode node, Map<String, PolicyRule> rules) throws AnswerRejected {
        exactFields("merged_rule", node, RULE_FIELDS);
        JsonNode scopeId = node.get("scope_id");
        if (!scopeId.isNull() && !(scopeId.isTextual() && !scopeId.asText().isEmpty())) {
            throw new AnswerRejected("merged_rule.scope_id must be a non-empty string or null, not " + excerpt(scopeId.toString()));
        }
        return new MergedRule(
                scope(node.get("scope")),
                scopeId.isNull() ? null : scopeId.asText(),
                effect("merged_rule.effect", node.get("effect")),
                text("merged_rule.target", node.get("target")),
                knownPolicy("merged_rule.based_on_policy_id", node.get("based_on_policy_id"), rules));
    }

    private static List<LoserAction> loserActions(JsonNode node, ConflictSnapshot conflict, Map<String, PolicyRule> rules)
            throws AnswerRejected {
        if (!node.isArray()) {
            throw new AnswerRejected("loser_actions must be an array, not " + excerpt(node.toString()));
        }
        Map<String, LoserAction> byPolicy = new LinkedHashMap<>();
        for (JsonNode item : node) {
            exactFields("each of loser_actions", item, ACTION_FIELDS);
            String policyId = knownPolicy("loser_actions[].policy_id", item.get("policy_id"), rules);
            if (policyId.equals(conflict.winnerPolicyId())) {
                throw new AnswerRejected("loser_actions gives an action to the winner " + policyId);
            }
            LoserAction action = new LoserAction(policyId, kind(item.get("action")), text("loser_actions[].detail", item.get("detail")));
            if (byPolicy.put(policyId, action) != null) {
                throw new AnswerRejected("loser_actions gives " + policyId + " more than one action");
            }
        }
        List<LoserAction> ordered = new ArrayList<>();
        Set<String> missing = new LinkedHashSet<>();
        for (PolicyRule loser : conflict.losers()) {
            LoserAction action = byPolicy.get(loser.policyId());
            if (action == null) {
                missing.add(loser.policyId());
            } else {
                ordered.add(action);
            }
        }
        if (!missing.isEmpty()) {
            throw new AnswerRejected("loser_actions has no action for the losing rule(s) " + String.join(", ", missing));
        }
        return ordered;
    }

    private static void exactFields(String what, JsonNode node, Set<String> expected) throws AnswerRejected {
        if (node == null || !node.isObject()) {
            throw new AnswerRejected(what + " must be a JSON object, not " + excerpt(String.valueOf(node)));
        }
        Set<String> present = new TreeSet<>();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            present.add(names.next());
        }
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(present);
        Set<String> extra = new TreeSet<>(present);
        extra.removeAll(expected);
        if (!missing.isEmpty()) {
            throw new AnswerRejected(what + " lacks " + String.join(", ", missing));
        }
        if (!extra.isEmpty()) {
            throw new AnswerRejected(what + " has fields it should not: " + excerpt(String.join(", ", extra)));
        }
    }

    private static String knownPolicy(String field, JsonNode node, Map<String, PolicyRule> rules) throws AnswerRejected {
        String id = text(field, node);
        if (!rules.containsKey(id)) {
            throw new AnswerRejected(field + " names '" + excerpt(id) + "', which is not one of the conflict's policy ids ("
                    + String.join(", ", rules.keySet()) + ")");
        }
        return id;
    }

    private static String text(String field, JsonNode node) throws AnswerRejected {
        if (node == null || !node.isTextual() || node.asText().isBlank()) {
            throw new AnswerRejected(field + " must be a non-empty string, not " + excerpt(String.valueOf(node)));
        }
        return node.asText();
    }

    private static Effect effect(String field, JsonNode node) throws AnswerRejected {
        String value = text(field, node);
        for (Effect effect : Effect.values()) {
            if (effect.wireName().equals(value)) {
                return effect;
            }
        }
        throw new AnswerRejected(field + " must be allow, deny or require_approval, not '" + excerpt(value) + "'");
    }

    private static Scope scope(JsonNode node) throws AnswerRejected {
        String value = text("merged_rule.scope", node);
        for (Scope scope : Scope.values()) {
            if (scope.wireName().equals(value)) {
                return scope;
            }
        }
        throw new AnswerRejected("merged_rule.scope must be platform, org, org_unit or member, not '" + excerpt(value) + "'");
    }

    private static LoserAction.Kind kind(JsonNode node) throws AnswerRejected {
        String value = text("loser_actions[].action", node);
        for (LoserAction.Kind kind : LoserAction.Kind.values()) {
            if (kind.name().toLowerCase(Locale.ROOT).equals(value)) {
                return kind;
            }
        }
        throw new AnswerRejected("loser_actions[].action must be keep, narrow or remove, not '" + excerpt(value) + "'");
    }

    /** Model output goes into messages and logs, so only a short piece of it. */
    private static String excerpt(String text) {
        String oneLine = text.replaceAll("\\s+", " ");
        return oneLine.length() <= 120 ? oneLine : oneLine.substring(0, 120) + "...";
    }
}
