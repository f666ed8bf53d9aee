package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.mergesynthesis.service.core.StoredConflict;
import java.time.Instant;
import java.util.UUID;

/** A conflict as the admin inbox sees it. */
@JsonPropertyOrder({"id", "org_id", "dedup_key", "action", "target", "rules", "winner_policy_id", "detected_at",
        "received_at", "synthesis", "inbox"})
public record ConflictView(
        @JsonProperty("id") UUID id,
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("dedup_key") String dedupKey,
        @JsonProperty("action") String action,
        @JsonProperty("target") String target,
        @JsonProperty("rules") @JsonRawValue String rules,
        @JsonProperty("winner_policy_id") String winnerPolicyId,
        @JsonProperty("detected_at") Instant detectedAt,
        @JsonProperty("received_at") Instant receivedAt,
        @JsonProperty("synthesis") Synthesis synthesis,
        @JsonProperty("inbox") Inbox inbox) {

    /** Where the worker pool is with this conflict. Written only by the workers. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"state", "attempts", "last_failure_reason", "failure_marker", "synthesized_at", "suggested_merge"})
    public record Synthesis(
            @JsonProperty("state") String state,
            @JsonProperty("attempts") int attempts,
            @JsonProperty("last_failure_reason") String lastFailureReason,
            @JsonProperty("failure_marker") String failureMarker,
            @JsonProperty("synthesized_at") Instant synthesizedAt,
            @JsonProperty("suggested_merge") @JsonRawValue String suggestedMerge) {
    }

    /** Where the org's admins are with this conflict. Written only through the API. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"status", "acknowledged_at", "resolved_at", "resolution", "note"})
    public record Inbox(
            @JsonProperty("status") String status,
            @JsonProperty("acknowledged_at") Instant acknowledgedAt,
            @JsonProperty("resolved_at") Instant resolvedAt,
            @JsonProperty("resolution") String resolution,
            @JsonProperty("note") String note) {
    }

    public static ConflictView of(StoredConflict c) {
        return new ConflictView(c.id(), c.orgId(), c.dedupKey(), c.action(), c.target(), c.rulesJson(),
                c.winnerPolicyId(), c.detectedAt(), c.receivedAt(),
                new Synthesis(c.synthesisState(), c.attempts(), c.lastFailureReason(), c.failureMarker(),
                        c.synthesizedAt(), c.suggestedMergeJson()),
                new Inbox(c.inboxStatus(), c.acknowledgedAt(), c.resolvedAt(), c.resolution(), c.resolutionNote()));
    }
}
