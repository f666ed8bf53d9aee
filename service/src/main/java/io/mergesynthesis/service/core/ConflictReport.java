package io.mergesynthesis.service.core;

import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.PolicyRule;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One conflict as the policy engine reports it, after validation.
 *
 * @param lane {@link Lane#BATCH} to send it to the batch lane whatever its org's lane; null to follow the org's
 */
public record ConflictReport(
        UUID orgId,
        String dedupKey,
        Action action,
        String target,
        List<PolicyRule> rules,
        String winnerPolicyId,
        Instant detectedAt,
        Lane lane) {

    /** A report that follows its org's lane. */
    public ConflictReport(UUID orgId, String dedupKey, Action action, String target, List<PolicyRule> rules,
                          String winnerPolicyId, Instant detectedAt) {
        this(orgId, dedupKey, action, target, rules, winnerPolicyId, detectedAt, null);
    }
}
