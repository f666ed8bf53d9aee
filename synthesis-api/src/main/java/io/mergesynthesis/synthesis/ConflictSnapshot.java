package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What a synthesizer gets to read: the conflict as stored, at the moment its lease was won.
 * The policy engine has already chosen the winner; a synthesizer explains and proposes, it does not re-decide.
 */
@JsonPropertyOrder({"conflict_id", "org_id", "dedup_key", "action", "target", "rules", "winner_policy_id", "detected_at"})
public record ConflictSnapshot(
        @JsonProperty("conflict_id") UUID conflictId,
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("dedup_key") String dedupKey,
        @JsonProperty("action") Action action,
        @JsonProperty("target") String target,
        @JsonProperty("rules") List<PolicyRule> rules,
        @JsonProperty("winner_policy_id") String winnerPolicyId,
        @JsonProperty("detected_at") Instant detectedAt) {

    public ConflictSnapshot {
        rules = List.copyOf(rules);
    }

    /** The rule the engine chose, if the snapshot names one that is present. */
    public Optional<PolicyRule> winner() {
        return rules.stream().filter(r -> r.policyId().equals(winnerPolicyId)).findFirst();
    }

    /** Every rule except the winner, in reported order. */
    public List<PolicyRule> losers() {
        return rules.stream().filter(r -> !r.policyId().equals(winnerPolicyId)).toList();
    }
}
