package io.mergesynthesis.service.core;

import java.time.Instant;

/** How one attempt at a conflict that stored no merge ended, or a re-queue: one line of its history. */
public record AttemptHistoryLine(int attempt, String outcome, String reason, String detail, Instant finishedAt,
                                 Instant notBefore) {
}
