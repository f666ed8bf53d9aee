package io.mergesynthesis.service.core;

import java.time.Instant;
import java.util.UUID;

/** The provider batch a conflict in state {@code batched} is in, and since when. */
public record BatchMembership(UUID batchId, String provider, String model, String providerBatchId, String state,
                              Instant since, Instant cancelRequestedAt) {
}
