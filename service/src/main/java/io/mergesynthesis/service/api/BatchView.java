package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.service.core.ProviderBatch;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** A batch of the batch lane, as {@code GET /v1/batches} lists it and its cancel answers it. */
public record BatchView(@JsonProperty("id") UUID id,
                        @JsonProperty("org_id") UUID orgId,
                        @JsonProperty("provider") String provider,
                        @JsonProperty("model") String model,
                        @JsonProperty("provider_batch_id") String providerBatchId,
                        @JsonProperty("state") String state,
                        @JsonProperty("requests") int requests,
                        @JsonProperty("reserved_usd") BigDecimal reservedUsd,
                        @JsonProperty("cost_usd") BigDecimal costUsd,
                        @JsonProperty("created_at") Instant createdAt,
                        @JsonProperty("ended_at") Instant endedAt,
                        @JsonProperty("cancel_requested_at") Instant cancelRequestedAt,
                        @JsonProperty("cancel_reason") String cancelReason,
                        @JsonProperty("cancel_sent_at") Instant cancelSentAt) {

    public static BatchView of(ProviderBatch batch) {
        return new BatchView(batch.id(), batch.orgId(), batch.provider(), batch.model(), batch.providerBatchId(),
                batch.state(), batch.requests(), batch.reservedUsd(), batch.costUsd(), batch.createdAt(),
                batch.endedAt(), batch.cancelRequestedAt(), batch.cancelReason(), batch.cancelSentAt());
    }
}
