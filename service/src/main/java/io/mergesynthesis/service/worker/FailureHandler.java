package io.mergesynthesis.service.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a failed attempt leads to and writes it: back to pending with backoff while attempts remain,
 * the permanent marker (and a "synthesis failed permanently" event) once they are used up. Both writes are
 * fenced on the lease and run under the conflict's org scope.
 */
final class FailureHandler {

    private static final Logger LOG = LoggerFactory.getLogger(FailureHandler.class);

    private final ScopedTransactions transactions;
    private final AttemptTracker tracker;
    private final Backoff backoff;
    private final int maxAttempts;
    private final SynthesisMetrics metrics;
    private final Consumer<RetryScheduled> retries;
    private final ObjectMapper json = new ObjectMapper();

    FailureHandler(ScopedTransactions transactions, AttemptTracker tracker, Backoff backoff, int maxAttempts,
                   SynthesisMetrics metrics, Consumer<RetryScheduled> retries) {
        this.transactions = transactions;
        this.tracker = tracker;
        this.backoff = backoff;
        this.maxAttempts = maxAttempts;
        this.metrics = metrics;
        this.retries = retries;
    }

    /**
     * Handles attempt number {@code attempt} having failed with {@code failure}.
     *
     * @param scopeOrg the org whose scope the row's transactions run under
     */
    Outcome failed(Lease lease, UUID scopeOrg, int attempt, Throwable failure) {
        FailureReason reason = FailureReason.of(failure);
        metrics.failed(reason);
        tracker.recordFailure(lease.conflictId(), attempt);
        if (reason == FailureReason.UNKNOWN) {
            LOG.error("Attempt {} at conflict {} failed unexpectedly", attempt, lease.conflictId(), failure);
        } else {
            LOG.info("Attempt {} at conflict {} failed ({}): {}", attempt, lease.conflictId(), reason.label(),
                    failure.getMessage());
        }
        try {
            return attempt >= maxAttempts ? markPermanent(lease, scopeOrg, attempt, reason)
                    : retryLater(lease, scopeOrg, attempt, reason);
        } catch (RuntimeException writeFailed) {
            // The row keeps its lease, which expires; a later claim picks it up and counts one more attempt.
            LOG.warn("Could not record the failure of conflict {}; its lease will expire instead",
                    lease.conflictId(), writeFailed);
            return Outcome.TRANSIENT_FAILURE;
        }
    }

    private Outcome retryLater(Lease lease, UUID scopeOrg, int attempt, FailureReason reason) {
        var delay = backoff.after(attempt);
        Optional<ConflictLeases.Release> release = transactions.inOrg(scopeOrg,
                handle -> ConflictLeases.releaseForRetry(handle, lease, reason, delay));
        if (release.isEmpty()) {
            return Outcome.SKIPPED;
        }
        retries.accept(new RetryScheduled(lease.conflictId(), attempt, reason, delay,
                release.get().releasedAt(), release.get().notBefore()));
        return Outcome.TRANSIENT_FAILURE;
    }

    private Outcome markPermanent(Lease lease, UUID scopeOrg, int attempt, FailureReason reason) {
        boolean marked = transactions.inOrg(scopeOrg, handle -> {
            if (!ConflictLeases.markPermanent(handle, lease, reason)) {
                return false;
            }
            ObjectNode details = json.createObjectNode()
                    .put("attempts", attempt)
                    .put("max_attempts", maxAttempts)
                    .put("last_failure_reason", reason.label());
            EventLog.append(handle, lease.orgId(), lease.conflictId(), EventType.SYNTHESIS_FAILED_PERMANENTLY,
                    details.toString());
            return true;
        });
        if (marked) {
            tracker.forget(lease.conflictId());
            LOG.warn("Conflict {} is marked synthesis_max_attempts_exceeded after attempt {}",
                    lease.conflictId(), attempt);
        }
        return marked ? Outcome.PERMANENT_FAILURE : Outcome.SKIPPED;
    }
}
