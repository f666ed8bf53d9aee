package io.mergesynthesis.service.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * A failed conflict went back to pending: after attempt {@code attempt} it waits {@code delay}, and no
 * replica may claim it before {@code notBefore} ({@code releasedAt + delay} on the database clock).
 */
public record RetryScheduled(UUID conflictId, int attempt, FailureReason reason, Duration delay,
                             Instant releasedAt, Instant notBefore) {
}
