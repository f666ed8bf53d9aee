package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One provider call from the usage ledger, as a conflict's view shows it.
 *
 * @param lane {@code interactive}, or {@code batch} for a request answered in a provider's batch
 */
public record ProviderCall(int attempt, String pass, String provider, String model, long inputTokens,
                           long outputTokens, long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd,
                           int latencyMs, String outcome, Instant createdAt, String lane) {
}
