package io.mergesynthesis.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code policy_conflicts} as the API reads it. JSON columns stay as text: the API passes them
 * through and never reinterprets what the engine or the synthesizer wrote.
 *
 * @param mergeCheckVersion the version of the merge check the stored merge passed; {@code null} when no merge is
 *                          stored, or when it was stored before the check existed
 * @param resolution        null until the conflict is resolved
 */
public record StoredConflict(
        UUID id,
        UUID orgId,
        String dedupKey,
        String action,
        String target,
        String rulesJson,
        String winnerPolicyId,
        Instant detectedAt,
        Instant receivedAt,
        SynthesisState synthesisState,
        int attempts,
        String lastFailureReason,
        String failureMarker,
        String suggestedMergeJson,
        Integer mergeCheckVersion,
        Instant synthesizedAt,
        InboxStatus inboxStatus,
        Instant acknowledgedAt,
        Instant resolvedAt,
        Resolution resolution,
        String resolutionNote) {
}
