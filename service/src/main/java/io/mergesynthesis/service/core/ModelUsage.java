package io.mergesynthesis.service.core;

import java.math.BigDecimal;

/** Month-to-date figures of one model ({@code provider/model}), of one org or of all. */
public record ModelUsage(String model, long calls, long inputTokens, long outputTokens, long cacheReadTokens,
                         long cacheWriteTokens, BigDecimal costUsd) {
}
