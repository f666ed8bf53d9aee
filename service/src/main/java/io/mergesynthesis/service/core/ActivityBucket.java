package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;

/** What the whole fleet did in one minute or one day: merges stored, attempts failed and deferred, and spend. */
public record ActivityBucket(Instant start, long merges, long failures, long deferrals, BigDecimal spendUsd) {
}
