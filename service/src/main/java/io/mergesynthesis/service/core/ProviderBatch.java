package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * One batch of the batch lane as the platform sees it: where it went, how far it is, what it reserved of its
 * org's budget and, once done, what its answers cost, and any cancel asked for.
 *
 * @param providerBatchId null while the create's answer is not recorded
 * @param costUsd         null until the batch is done
 */
public record ProviderBatch(UUID id, UUID orgId, String provider, String model, String providerBatchId, String state,
                            int requests, BigDecimal reservedUsd, BigDecimal costUsd, Instant createdAt,
                            Instant endedAt, Instant cancelRequestedAt, String cancelReason, Instant cancelSentAt) {

    public boolean done() {
        return "done".equals(state);
    }
}
