package io.mergesynthesis.service.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.core.AttemptHistoryLine;
import io.mergesynthesis.service.core.BatchMembership;
import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.ProviderCall;
import io.mergesynthesis.service.core.RepairPasses;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.ConflictWithHistory;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values of one conflict's page. The rules and the suggested merge are read from their stored JSON leniently:
 * a field that is missing shows as empty, so a page never fails on what another system wrote.
 */
record ConflictDetail(String id, String dedupKey, String action, String target, String winnerPolicyId,
                      Moment detected, Moment received, List<RuleRow> rules, List<String> cautions,
                      String state, String stateLabel, int attempts, String lastFailureReason, String failureMarker,
                      Moment synthesized, Merge merge, CheckPanel check, List<CallRow> calls, String callsCost,
                      List<AttemptRow> history, String aheadInOrg, InBatch inBatch,
                      String inboxStatus, Moment acknowledged, String acknowledgedBy, Moment resolved,
                      String resolvedBy, String resolution,
                      String resolutionLabel, String note, boolean mayChange, boolean mayRequeue,
                      List<ResolutionOption> resolutions) {

    record RuleRow(String policyId, String scope, String scopeId, String effect, String target, boolean winner) {
    }

    record Merge(String resolvedEffect, String mergedScope, String mergedScopeId, String mergedEffect,
                 String mergedTarget, String basedOn, List<LoserAction> loserActions, String rationale,
                 String confidence, String synthesizer, String provider, String model, Moment generated,
                 RuleDiff diff) {

        boolean noLosers() {
            return loserActions.isEmpty();
        }
    }

    record LoserAction(String policyId, String before, String action, String detail) {
    }

    record CallRow(int attempt, String pass, String lane, String provider, String model, long inputTokens,
                   long outputTokens, long cacheTokens, String cost, int latencyMs, String outcome, Moment at) {
    }

    /** The provider batch the conflict is in, and since when. */
    record InBatch(String id, String provider, String providerBatchId, Moment since, boolean canceling) {
    }

    record AttemptRow(int attempt, String outcome, String reason, String detail, Moment finished, Moment notBefore) {
    }

    record ResolutionOption(String value, String label, boolean disabled) {
    }

    static ConflictDetail of(StoredConflict c, List<ProviderCall> calls, List<AttemptHistoryLine> history,
                             Deciders deciders, Integer aheadInOrg, BatchMembership batch,
                             boolean mayChange, boolean mayRequeue,
                             ObjectMapper json, Instant now,
                             double escalateBelow) {
        List<RuleRow> rules = rules(c, json);
        Map<String, String> ruleText = new HashMap<>();
        rules.forEach(r -> ruleText.put(r.policyId(), r.scope() + " rule: " + r.effect() + " on " + r.target()));
        Merge merge = c.suggestedMergeJson() == null ? null : merge(read(json, c.suggestedMergeJson()), ruleText, now,
                RuleDiff.of(rules, read(json, c.suggestedMergeJson()), escalateBelow));
        BigDecimal cost = calls.stream().map(ProviderCall::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
        List<CallRow> callRows = RepairPasses.named(calls).stream().map(k -> new CallRow(k.attempt(), k.pass(), k.lane(), k.provider(), k.model(),
                k.inputTokens(), k.outputTokens(), k.cacheReadTokens() + k.cacheWriteTokens(), Dollars.usd(k.costUsd()),
                k.latencyMs(), k.outcome(), Moment.of(k.createdAt(), now))).toList();
        List<AttemptRow> attempts = history.stream().map(a -> new AttemptRow(a.attempt(), a.outcome(), a.reason(),
                a.detail(), Moment.of(a.finishedAt(), now), Moment.of(a.notBefore(), now))).toList();
        List<ResolutionOption> options = new ArrayList<>();
        for (Resolution r : Resolution.values()) {
            boolean needsMerge = r == Resolution.ACCEPTED_SUGGESTION && c.suggestedMergeJson() == null;
            options.add(new ResolutionOption(r.wireName(), r.label(), needsMerge));
        }
        return new ConflictDetail(c.id().toString(), c.dedupKey(), c.action(), c.target(), c.winnerPolicyId(),
                Moment.of(c.detectedAt(), now), Moment.of(c.receivedAt(), now), rules, LayerCautions.of(rules),
                c.synthesisState().wireName(), c.synthesisState().label(), c.attempts(), c.lastFailureReason(),
                c.failureMarker(), Moment.of(c.synthesizedAt(), now), merge, CheckPanel.of(c), callRows,
                Dollars.usd(cost), attempts, ahead(aheadInOrg), inBatch(batch, now), c.inboxStatus().wireName(),
                Moment.of(c.acknowledgedAt(), now), ActorWords.of(deciders.acknowledgedByJson(), json),
                Moment.of(c.resolvedAt(), now), ActorWords.of(deciders.resolvedByJson(), json),
                c.resolution() == null ? null : c.resolution().wireName(),
                c.resolution() == null ? null : c.resolution().label(), c.resolutionNote(),
                mayChange, mayRequeue, options);
    }

    /**
     * How many of the org's conflicts the claims take before this one, as the page says it; null unless it waits.
     * The count stops at {@link ConflictWithHistory#AHEAD_COUNTED_TO}, so that figure reads "or more".
     */
    private static String ahead(Integer aheadInOrg) {
        if (aheadInOrg == null) {
            return null;
        }
        String figure = String.format(java.util.Locale.ROOT, "%,d", aheadInOrg);
        return aheadInOrg >= ConflictWithHistory.AHEAD_COUNTED_TO ? figure + " or more" : figure;
    }

    private static InBatch inBatch(BatchMembership batch, Instant now) {
        return batch == null ? null : new InBatch(batch.batchId().toString(), batch.provider(),
                batch.providerBatchId(), Moment.of(batch.since(), now), batch.cancelRequestedAt() != null);
    }

    boolean hasCautions() {
        return !cautions.isEmpty();
    }

    boolean pending() {
        return SynthesisState.PENDING.wireName().equals(state) || SynthesisState.IN_PROGRESS.wireName().equals(state);
    }

    boolean waitingBudget() {
        return SynthesisState.WAITING_BUDGET.wireName().equals(state);
    }

    boolean failed() {
        return SynthesisState.MAX_ATTEMPTS_EXCEEDED.wireName().equals(state);
    }

    /** A marked conflict, and a person who may give it another chance. */
    boolean canRequeue() {
        return mayRequeue && failed();
    }

    boolean hasCalls() {
        return !calls.isEmpty();
    }

    boolean hasHistory() {
        return !history.isEmpty();
    }

    boolean isResolved() {
        return InboxStatus.RESOLVED.wireName().equals(inboxStatus);
    }

    boolean canAcknowledge() {
        return mayChange && InboxStatus.OPEN.wireName().equals(inboxStatus);
    }

    boolean canResolve() {
        return mayChange && !isResolved();
    }

    private static List<RuleRow> rules(StoredConflict c, ObjectMapper json) {
        List<RuleRow> rows = new ArrayList<>();
        for (JsonNode rule : read(json, c.rulesJson())) {
            String policy = text(rule, "policy_id");
            rows.add(new RuleRow(policy, text(rule, "scope"), text(rule, "scope_id"), text(rule, "effect"),
                    text(rule, "target"), c.winnerPolicyId().equals(policy)));
        }
        return rows;
    }

    private static Merge merge(JsonNode m, Map<String, String> ruleText, Instant now, RuleDiff diff) {
        JsonNode merged = m.path("merged_rule");
        List<LoserAction> actions = new ArrayList<>();
        for (JsonNode a : m.path("loser_actions")) {
            String policy = text(a, "policy_id");
            actions.add(new LoserAction(policy, ruleText.get(policy), text(a, "action"), text(a, "detail")));
        }
        JsonNode confidence = m.path("confidence");
        JsonNode by = m.path("produced_by");
        Instant generated = null;
        try {
            generated = m.hasNonNull("generated_at") ? Instant.parse(m.get("generated_at").asText()) : null;
        } catch (RuntimeException e) {
            // Shown without a time rather than not at all.
        }
        return new Merge(text(m, "resolved_effect"), text(merged, "scope"), text(merged, "scope_id"),
                text(merged, "effect"), text(merged, "target"), text(merged, "based_on_policy_id"), actions,
                text(m, "rationale"),
                confidence.isNumber() ? String.format(java.util.Locale.ROOT, "%.2f", confidence.asDouble()) : null,
                text(by, "synthesizer"), text(by, "provider"), text(by, "model"), Moment.of(generated, now), diff);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asText();
    }

    private static JsonNode read(ObjectMapper json, String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            return json.createObjectNode();
        }
    }
}
