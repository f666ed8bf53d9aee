package io.mergesynthesis.service.worker.batch;

import java.time.Instant;
import java.util.UUID;

/**
 * A batch as its row holds it, taken for a poll.
 *
 * @param providerBatchId null while no answer to its create was recorded: the provider may or may not hold it
 * @param endedAt         when a poll first saw it ended; null before
 * @param cancelDue       a cancel was asked for and the provider has not been asked yet
 */
public record BatchRow(UUID id, UUID orgId, String provider, String model, String providerBatchId, String state,
                       Instant createdAt, Instant endedAt, boolean cancelDue) {
}
