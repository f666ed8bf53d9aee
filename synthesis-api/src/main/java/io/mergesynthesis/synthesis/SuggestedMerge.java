package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A proposed rewrite of the rules in one conflict that removes the conflict and keeps the winner's intent.
 * Its JSON form is fixed by {@code suggested-merge.schema.json}; the worker validates every synthesizer's
 * output against that schema before storing it.
 *
 * @param confidence between 0 and 1, or {@code null} when the synthesizer has no calibrated score (the stub)
 */
@JsonPropertyOrder({"schema_version", "conflict_id", "winner", "losers", "resolved_effect", "merged_rule",
        "loser_actions", "rationale", "confidence", "produced_by", "generated_at"})
public record SuggestedMerge(
        @JsonProperty("schema_version") int schemaVersion,
        @JsonProperty("conflict_id") UUID conflictId,
        @JsonProperty("winner") RuleRef winner,
        @JsonProperty("losers") List<RuleRef> losers,
        @JsonProperty("resolved_effect") Effect resolvedEffect,
        @JsonProperty("merged_rule") MergedRule mergedRule,
        @JsonProperty("loser_actions") List<LoserAction> loserActions,
        @JsonProperty("rationale") String rationale,
        @JsonProperty("confidence") @JsonInclude(JsonInclude.Include.ALWAYS) Double confidence,
        @JsonProperty("produced_by") ProducedBy producedBy,
        @JsonProperty("generated_at") Instant generatedAt) {

    /** The version of the output shape this record writes. */
    public static final int SCHEMA_VERSION = 1;

    /** Classpath location of the JSON Schema that every suggested merge must satisfy. */
    public static final String SCHEMA_RESOURCE = "/io/mergesynthesis/synthesis/suggested-merge.schema.json";

    /** A rule as the merge refers to it. */
    @JsonPropertyOrder({"policy_id", "scope", "effect", "target"})
    public record RuleRef(
            @JsonProperty("policy_id") String policyId,
            @JsonProperty("scope") Scope scope,
            @JsonProperty("effect") Effect effect,
            @JsonProperty("target") String target) {

        public static RuleRef of(PolicyRule rule) {
            return new RuleRef(rule.policyId(), rule.scope(), rule.effect(), rule.target());
        }
    }

    /** The single rule that should stand once the merge is applied. */
    @JsonPropertyOrder({"scope", "scope_id", "effect", "target", "based_on_policy_id"})
    public record MergedRule(
            @JsonProperty("scope") Scope scope,
            @JsonProperty("scope_id") @JsonInclude(JsonInclude.Include.ALWAYS) String scopeId,
            @JsonProperty("effect") Effect effect,
            @JsonProperty("target") String target,
            @JsonProperty("based_on_policy_id") String basedOnPolicyId) {
    }

    /** What to do with one losing rule. */
    @JsonPropertyOrder({"policy_id", "action", "detail"})
    public record LoserAction(
            @JsonProperty("policy_id") String policyId,
            @JsonProperty("action") Kind action,
            @JsonProperty("detail") String detail) {

        public enum Kind {
            /** The rule stays as it is: it does not actually contradict the winner. */
            @JsonProperty("keep") KEEP,
            /** The rule stays but its target shrinks so that it no longer covers the winner's target. */
            @JsonProperty("narrow") NARROW,
            /** The rule is fully shadowed by the winner and can go. */
            @JsonProperty("remove") REMOVE
        }
    }

    /** Which synthesizer and model wrote the merge. */
    @JsonPropertyOrder({"synthesizer", "provider", "model"})
    public record ProducedBy(
            @JsonProperty("synthesizer") String synthesizer,
            @JsonProperty("provider") String provider,
            @JsonProperty("model") String model) {
    }
}
