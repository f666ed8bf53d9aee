package io.mergesynthesis.synthesis;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One rule taking part in a conflict, as the policy engine reported it.
 *
 * @param scopeId the id of the layer's owner (org, org unit or member); {@code null} for platform rules
 * @param target  a target name such as {@code jira.create_issue}, or a pattern ({@code jira.*}, {@code *})
 */
public record PolicyRule(
        @JsonProperty("policy_id") String policyId,
        @JsonProperty("scope") Scope scope,
        @JsonProperty("scope_id") String scopeId,
        @JsonProperty("effect") Effect effect,
        @JsonProperty("target") String target) {
}
