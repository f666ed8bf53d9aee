package io.mergesynthesis.service.core;

import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.PolicyRule;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** One conflict as the policy engine reports it, after validation. */
public record ConflictReport(
        UUID orgId,
        String dedupKey,
        Action action,
        String target,
        List<PolicyRule> rules,
        String winnerPolicyId,
        Instant detectedAt) {
}
