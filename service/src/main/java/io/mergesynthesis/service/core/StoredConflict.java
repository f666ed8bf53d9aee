package io.mergesynthesis.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code policy_conflicts} as the API reads it. JSON columns stay as text: the API passes them
 * through and never reinterprets what the engine or the synthesizer wrote.
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
        String synthesisState,
        int attempts,
        String lastFailureReason,
        String failureMarker,
        String suggestedMergeJson,
        Instant synthesizedAt,
        String inboxStatus,
        Instant acknowledgedAt,
        Instant resolvedAt,
        String resolution,
        String resolutionNote) {
}
