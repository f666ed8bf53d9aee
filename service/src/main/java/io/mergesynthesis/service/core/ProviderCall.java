package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;

/** One provider call from the usage ledger, as a conflict's view shows it. */
public record ProviderCall(int attempt, String pass, String provider, String model, long inputTokens,
                           long outputTokens, long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd,
                           int latencyMs, String outcome, Instant createdAt) {
}
