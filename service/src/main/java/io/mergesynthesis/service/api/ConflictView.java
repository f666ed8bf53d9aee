package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.mergesynthesis.service.core.AttemptHistoryLine;
import io.mergesynthesis.service.core.BatchMembership;
import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.ProviderCall;
import io.mergesynthesis.service.core.RepairPasses;
import io.mergesynthesis.service.core.StoredConflict;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
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

    /**
     * Where the worker pool is with this conflict. Written only by the workers. {@code check}, {@code calls} and
     * {@code attempt_history} are shown for one conflict, not in pages of them; so is {@code ahead_in_org}, only
     * while the conflict is pending: how many of its org's conflicts the claims take before it, counted up to
     * 10,000.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"state", "ahead_in_org", "batch", "attempts", "last_failure_reason", "failure_marker",
            "synthesized_at", "suggested_merge", "check", "calls", "attempt_history"})
    public record Synthesis(
            @JsonProperty("state") String state,
            @JsonProperty("ahead_in_org") @JsonInclude(JsonInclude.Include.NON_NULL) Integer aheadInOrg,
            @JsonProperty("batch") @JsonInclude(JsonInclude.Include.NON_NULL) InBatch batch,
            @JsonProperty("attempts") int attempts,
            @JsonProperty("last_failure_reason") String lastFailureReason,
            @JsonProperty("failure_marker") String failureMarker,
            @JsonProperty("synthesized_at") Instant synthesizedAt,
            @JsonProperty("suggested_merge") @JsonRawValue String suggestedMerge,
            @JsonProperty("check") @JsonInclude(JsonInclude.Include.NON_NULL) MergeCheckView check,
            @JsonProperty("calls") @JsonInclude(JsonInclude.Include.NON_NULL) List<Call> calls,
            @JsonProperty("attempt_history") @JsonInclude(JsonInclude.Include.NON_NULL) List<HistoryLine> history) {
    }

    /** The provider batch a conflict in state {@code batched} is in, and since when. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"id", "provider", "model", "provider_batch_id", "since", "cancel_requested_at"})
    public record InBatch(
            @JsonProperty("id") java.util.UUID id,
            @JsonProperty("provider") String provider,
            @JsonProperty("model") String model,
            @JsonProperty("provider_batch_id") String providerBatchId,
            @JsonProperty("since") Instant since,
            @JsonProperty("cancel_requested_at") Instant cancelRequestedAt) {

        static InBatch of(BatchMembership batch) {
            return batch == null ? null : new InBatch(batch.batchId(), batch.provider(), batch.model(),
                    batch.providerBatchId(), batch.since(), batch.cancelRequestedAt());
        }
    }

    /** One provider call from the usage ledger. */
    @JsonPropertyOrder({"attempt", "pass", "lane", "model", "input_tokens", "output_tokens", "cache_read_tokens",
            "cache_write_tokens", "cost_usd", "latency_ms", "outcome", "at"})
    public record Call(
            @JsonProperty("attempt") int attempt,
            @JsonProperty("pass") String pass,
            @JsonProperty("lane") String lane,
            @JsonProperty("model") String model,
            @JsonProperty("input_tokens") long inputTokens,
            @JsonProperty("output_tokens") long outputTokens,
            @JsonProperty("cache_read_tokens") long cacheReadTokens,
            @JsonProperty("cache_write_tokens") long cacheWriteTokens,
            @JsonProperty("cost_usd") BigDecimal costUsd,
            @JsonProperty("latency_ms") int latencyMs,
            @JsonProperty("outcome") String outcome,
            @JsonProperty("at") Instant at) {

        static Call of(ProviderCall call) {
            return new Call(call.attempt(), call.pass(), call.lane(), call.provider() + "/" + call.model(),
                    call.inputTokens(),
                    call.outputTokens(), call.cacheReadTokens(), call.cacheWriteTokens(), call.costUsd(),
                    call.latencyMs(), call.outcome(), call.createdAt());
        }
    }

    /** How one attempt that stored no merge ended. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"attempt", "outcome", "reason", "detail", "at", "not_before"})
    public record HistoryLine(
            @JsonProperty("attempt") int attempt,
            @JsonProperty("outcome") String outcome,
            @JsonProperty("reason") String reason,
            @JsonProperty("detail") String detail,
            @JsonProperty("at") Instant at,
            @JsonProperty("not_before") Instant notBefore) {

        static HistoryLine of(AttemptHistoryLine line) {
            return new HistoryLine(line.attempt(), line.outcome(), line.reason(), line.detail(), line.finishedAt(),
                    line.notBefore());
        }
    }

    /**
     * Where the org's admins are with this conflict. Written only through the API. {@code acknowledged_by} and
     * {@code resolved_by} (a person or a token) are shown for one conflict, not in pages of them.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"status", "acknowledged_at", "acknowledged_by", "resolved_at", "resolved_by", "resolution",
            "note"})
    public record Inbox(
            @JsonProperty("status") String status,
            @JsonProperty("acknowledged_at") Instant acknowledgedAt,
            @JsonProperty("acknowledged_by") @JsonInclude(JsonInclude.Include.NON_NULL) @JsonRawValue
            String acknowledgedBy,
            @JsonProperty("resolved_at") Instant resolvedAt,
            @JsonProperty("resolved_by") @JsonInclude(JsonInclude.Include.NON_NULL) @JsonRawValue String resolvedBy,
            @JsonProperty("resolution") String resolution,
            @JsonProperty("note") String note) {
    }

    /** A conflict as a page of the inbox lists it. */
    public static ConflictView of(StoredConflict c) {
        return of(c, null, null, null, null, null);
    }

    /**
     * One conflict on its own, with what the merge check says of it, its provider calls, attempt history and who
     * decided it, while it is pending how many of its org's conflicts are ahead of it (null otherwise), and while
     * it is in a provider's batch, which (null otherwise).
     */
    public static ConflictView of(StoredConflict c, List<ProviderCall> calls, List<AttemptHistoryLine> history,
                                  Deciders deciders, Integer aheadInOrg, BatchMembership batch) {
        return new ConflictView(c.id(), c.orgId(), c.dedupKey(), c.action(), c.target(), c.rulesJson(),
                c.winnerPolicyId(), c.detectedAt(), c.receivedAt(),
                new Synthesis(c.synthesisState().wireName(), aheadInOrg, InBatch.of(batch), c.attempts(),
                        c.lastFailureReason(),
                        c.failureMarker(),
                        c.synthesizedAt(), c.suggestedMergeJson(),
                        calls == null ? null : MergeCheckView.of(c),
                        calls == null ? null : RepairPasses.named(calls).stream().map(Call::of).toList(),
                        history == null ? null : history.stream().map(HistoryLine::of).toList()),
                new Inbox(c.inboxStatus().wireName(), c.acknowledgedAt(),
                        deciders == null ? null : deciders.acknowledgedByJson(), c.resolvedAt(),
                        deciders == null ? null : deciders.resolvedByJson(),
                        c.resolution() == null ? null : c.resolution().wireName(), c.resolutionNote()));
    }
}
