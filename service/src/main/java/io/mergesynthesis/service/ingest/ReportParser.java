package io.mergesynthesis.service.ingest;

import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.core.Lane;
import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.service.core.IdentifierText;
import io.mergesynthesis.service.core.Storable;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.TargetPattern;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Turns an ingest body into conflict reports, collecting every problem with the path of the field it is in
 * (for example {@code conflicts[3].rules[0].effect}) so that the caller can fix a whole batch in one go.
 *
 * <p>The body is either one conflict object or {@code {"conflicts": [ ... ]}}.
 */
public final class ReportParser {

    static final int MAX_KEY_LENGTH = 200;
    static final int MAX_TARGET_LENGTH = 300;
    static final int MAX_POLICY_ID_LENGTH = 200;
    static final int MAX_RULES = 50;
    static final String TARGET_GRAMMAR = "a target is *, a name, or a name followed by .*, where a name is "
            + "dot-separated segments of letters, digits and _ - : / @";

    private static final Set<String> CONFLICT_FIELDS = Set.of(
            "org_id", "dedup_key", "action", "target", "rules", "winner_policy_id", "detected_at", "lane");
    private static final Set<String> RULE_FIELDS = Set.of("policy_id", "scope", "scope_id", "effect", "target");

    private final int maxBatchSize;

    public ReportParser(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    /** A field that failed validation and why. */
    public record FieldError(String field, String message) {
    }

    /** What the body held: whether it was a batch, the reports, and every error found. */
    public record Parsed(boolean batch, List<ConflictReport> reports, List<FieldError> errors) {
        public boolean valid() {
            return errors.isEmpty();
        }
    }

    /**
     * @param defaultOrg the org assumed when a report leaves {@code org_id} out (the caller's own), or null
     */
    public Parsed parse(JsonNode body, UUID defaultOrg) {
        List<FieldError> errors = new ArrayList<>();
        List<ConflictReport> reports = new ArrayList<>();
        if (body == null || !body.isObject()) {
            errors.add(new FieldError("(body)", "must be a conflict object or {\"conflicts\": [...]}"));
            return new Parsed(false, reports, errors);
        }
        if (!body.has("conflicts")) {
            parseConflict(body, "", defaultOrg, errors).ifValid(reports::add);
            return new Parsed(false, reports, errors);
        }
        JsonNode items = body.get("conflicts");
        body.fieldNames().forEachRemaining(name -> {
            if (!name.equals("conflicts")) {
                errors.add(new FieldError(name, "unknown field in a batch (put conflicts inside \"conflicts\")"));
            }
        });
        if (!items.isArray() || items.isEmpty()) {
            errors.add(new FieldError("conflicts", "must be a non-empty array"));
        } else if (items.size() > maxBatchSize) {
            errors.add(new FieldError("conflicts", "holds " + items.size() + " items; at most " + maxBatchSize
                    + " are accepted per request"));
        } else {
            for (int i = 0; i < items.size(); i++) {
                parseConflict(items.get(i), "conflicts[" + i + "].", defaultOrg, errors).ifValid(reports::add);
            }
        }
        return new Parsed(true, reports, errors);
    }

    private record Maybe(ConflictReport report) {
        void ifValid(java.util.function.Consumer<ConflictReport> sink) {
            if (report != null) {
                sink.accept(report);
            }
        }
    }

    private Maybe parseConflict(JsonNode node, String at, UUID defaultOrg, List<FieldError> errors) {
        int before = errors.size();
        if (!node.isObject()) {
            errors.add(new FieldError(at.isEmpty() ? "(body)" : at.substring(0, at.length() - 1), "must be an object"));
            return new Maybe(null);
        }
        rejectUnknown(node, CONFLICT_FIELDS, at, errors);

        UUID org = node.has("org_id")
                ? uuid(node.get("org_id"), at + "org_id", errors)
                : defaultOrg;
        if (org == null && !node.has("org_id")) {
            errors.add(new FieldError(at + "org_id", "is required"));
        }
        String dedupKey = text(node, "dedup_key", at, MAX_KEY_LENGTH, errors);
        Action action = choice(node, "action", at, Action.values(), Action::wireName, errors);
        String target = target(node, at, errors);
        String winner = text(node, "winner_policy_id", at, MAX_POLICY_ID_LENGTH, errors);
        Instant detectedAt = instant(node, "detected_at", at, errors);
        List<PolicyRule> rules = rules(node, at, org, target, errors);
        Lane lane = lane(node, at, errors);

        if (winner != null && node.path("rules").isArray()
                && node.get("rules").findValuesAsText("policy_id").stream().noneMatch(winner::equals)) {
            errors.add(new FieldError(at + "winner_policy_id", "names no rule in rules: " + winner));
        }
        if (errors.size() > before) {
            return new Maybe(null);
        }
        return new Maybe(new ConflictReport(org, dedupKey, action, target, rules, winner, detectedAt, lane));
    }

    /**
     * @param org    the conflict's org, or null when it is not known
     * @param target the conflict's target, or null when it is not a target
     */
    private List<PolicyRule> rules(JsonNode node, String at, UUID org, String target, List<FieldError> errors) {
        JsonNode rules = node.get("rules");
        if (rules == null || rules.isNull()) {
            errors.add(new FieldError(at + "rules", "is required"));
            return null;
        }
        if (!rules.isArray() || rules.isEmpty() || rules.size() > MAX_RULES) {
            errors.add(new FieldError(at + "rules", "must be an array of 1 to " + MAX_RULES + " rules"));
            return null;
        }
        int before = errors.size();
        List<PolicyRule> parsed = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < rules.size(); i++) {
            String ruleAt = at + "rules[" + i + "].";
            JsonNode rule = rules.get(i);
            if (!rule.isObject()) {
                errors.add(new FieldError(at + "rules[" + i + "]", "must be an object"));
                continue;
            }
            rejectUnknown(rule, RULE_FIELDS, ruleAt, errors);
            String policyId = text(rule, "policy_id", ruleAt, MAX_POLICY_ID_LENGTH, errors);
            Scope scope = choice(rule, "scope", ruleAt, Scope.values(), Scope::wireName, errors);
            Effect effect = choice(rule, "effect", ruleAt, Effect.values(), Effect::wireName, errors);
            String ruleTarget = target(rule, ruleAt, errors);
            if (ruleTarget != null && target != null && !TargetPattern.covers(ruleTarget, target)) {
                errors.add(new FieldError(ruleAt + "target", "does not cover the conflict's target " + target
                        + " (the engine reports only rules that apply to it)"));
            }
            String scopeId = scopeId(rule, ruleAt, scope, org, errors);
            if (policyId != null && !ids.add(policyId)) {
                errors.add(new FieldError(ruleAt + "policy_id", "repeats another rule's policy_id: " + policyId));
            }
            parsed.add(new PolicyRule(policyId, scope, scopeId, effect, ruleTarget));
        }
        return errors.size() > before ? null : parsed;
    }

    private static String target(JsonNode node, String at, List<FieldError> errors) {
        String target = text(node, "target", at, MAX_TARGET_LENGTH, errors);
        if (target == null) {
            return null;
        }
        String problem = TargetPattern.problem(target);
        if (problem != null) {
            errors.add(new FieldError(at + "target", problem + "; " + TARGET_GRAMMAR));
            return null;
        }
        return target;
    }

    /** A platform rule belongs to no org, and an org rule in a conflict can only be that conflict's org's. */
    private static String scopeId(JsonNode rule, String at, Scope scope, UUID org, List<FieldError> errors) {
        JsonNode node = rule.get("scope_id");
        boolean present = node != null && !node.isNull();
        if (scope == Scope.PLATFORM) {
            if (present) {
                errors.add(new FieldError(at + "scope_id", "must be null for a platform rule (it belongs to no org)"));
            }
            return null;
        }
        if (!present) {
            if (scope != null) {
                errors.add(new FieldError(at + "scope_id", "is required for a " + scope.wireName() + " rule"));
            }
            return null;
        }
        String scopeId = text(rule, "scope_id", at, MAX_POLICY_ID_LENGTH, errors);
        if (scopeId != null && scope == Scope.ORG && org != null && !scopeId.equals(org.toString())) {
            errors.add(new FieldError(at + "scope_id", "must be the conflict's org_id " + org
                    + " for an org rule (got \"" + scopeId + "\")"));
            return null;
        }
        return scopeId;
    }

    /**
     * The lane an item asks for: batch sends it to the batch lane whatever its org's lane; absent or null follows
     * the org's. An item cannot ask out of its org's batch lane: the interactive claim passes over such an org
     * whole, so that its backlog never takes the places of orgs that wait for calls.
     */
    private static Lane lane(JsonNode node, String at, List<FieldError> errors) {
        JsonNode lane = node.get("lane");
        if (lane == null || lane.isNull()) {
            return null;
        }
        if (lane.isTextual() && lane.textValue().equals(Lane.BATCH.wireName())) {
            return Lane.BATCH;
        }
        errors.add(new FieldError(at + "lane", "must be batch, or left out to follow the org's lane (got " + lane
                + ")"));
        return null;
    }

    private static void rejectUnknown(JsonNode node, Set<String> known, String at, List<FieldError> errors) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                errors.add(new FieldError(at + name, "is not a known field"));
            }
        }
    }

    private static String text(JsonNode node, String field, String at, int maxLength, List<FieldError> errors) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            errors.add(new FieldError(at + field, "is required"));
            return null;
        }
        if (!value.isTextual()) {
            errors.add(new FieldError(at + field, "must be a string"));
            return null;
        }
        String text = value.textValue();
        if (text.isBlank()) {
            errors.add(new FieldError(at + field, "must not be blank"));
            return null;
        }
        if (text.length() > maxLength) {
            errors.add(new FieldError(at + field, "is longer than " + maxLength + " characters"));
            return null;
        }
        String problem = IdentifierText.problem(text);
        if (problem != null) {
            errors.add(new FieldError(at + field, problem));
            return null;
        }
        return text;
    }

    private static <E> E choice(JsonNode node, String field, String at, E[] values, Function<E, String> wire,
                                List<FieldError> errors) {
        String text = text(node, field, at, 100, errors);
        if (text == null) {
            return null;
        }
        for (E value : values) {
            if (wire.apply(value).equals(text)) {
                return value;
            }
        }
        errors.add(new FieldError(at + field, "must be one of "
                + String.join(", ", Arrays.stream(values).map(wire).toList()) + " (got \"" + text + "\")"));
        return null;
    }

    private static UUID uuid(JsonNode value, String field, List<FieldError> errors) {
        if (value == null || !value.isTextual()) {
            errors.add(new FieldError(field, "must be a UUID string"));
            return null;
        }
        try {
            UUID parsed = UUID.fromString(value.textValue());
            if (!parsed.toString().equals(value.textValue().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("not canonical");
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(field, "must be a UUID such as 3f2a9c1e-8d4b-4a51-9e0f-2b7c6d5e4f30"));
            return null;
        }
    }

    private static Instant instant(JsonNode node, String field, String at, List<FieldError> errors) {
        String text = text(node, field, at, 64, errors);
        if (text == null) {
            return null;
        }
        Instant parsed;
        try {
            parsed = Instant.parse(text);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(at + field, "must be an ISO-8601 UTC timestamp such as 2026-11-20T10:15:00Z"));
            return null;
        }
        if (!Storable.instant(parsed)) {
            errors.add(new FieldError(at + field, "must be between " + Storable.EARLIEST + " and " + Storable.LATEST));
            return null;
        }
        return parsed;
    }
}
