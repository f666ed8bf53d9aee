package io.mergesynthesis.service.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a failed attempt leads to and writes it: back to pending with backoff while attempts remain,
 * the permanent marker (and a "synthesis failed permanently" event) once they are used up. An attempt that
 * failed only because the database was unavailable is not counted at all. Every write is fenced on the lease
 * and runs under the conflict's org scope.
 */
final class FailureHandler {

    private static final Logger LOG = LoggerFactory.getLogger(FailureHandler.class);
    /** Pauses between tries of a hand-back while the database is unavailable: 100 ms doubling to 1 s. */
    private static final Duration HAND_BACK_RETRY_FIRST = Duration.ofMillis(100);
    private static final Duration HAND_BACK_RETRY_LAST = Duration.ofSeconds(1);

    private final ScopedTransactions transactions;
    private final AttemptTracker tracker;
    private final RetryPolicy policy;
    private final SynthesisMetrics metrics;
    private final Consumer<RetryScheduled> retries;
    private final ObjectMapper json = new ObjectMapper();

    FailureHandler(ScopedTransactions transactions, AttemptTracker tracker, RetryPolicy policy,
                   SynthesisMetrics metrics, Consumer<RetryScheduled> retries) {
        this.transactions = transactions;
        this.tracker = tracker;
        this.policy = policy;
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
        List<UsageLedger.Entry> calls = AttemptFailure.callsOf(failure);
        if (!policy.counts(reason, failure)) {
            return cutShortByTheDatabase(lease, scopeOrg, attempt, reason, failure, calls);
        }
        tracker.recordFailure(lease.conflictId(), attempt, lease.attempts());
        if (reason == FailureReason.UNKNOWN) {
            LOG.error("Attempt {} at conflict {} failed unexpectedly", attempt, lease.conflictId(), failure);
        } else {
            LOG.info("Attempt {} at conflict {} failed ({}): {}", attempt, lease.conflictId(), reason.label(),
                    failure.getMessage());
        }
        try {
            return policy.exhausted(attempt) ? markPermanent(lease, scopeOrg, attempt, reason, failure, calls)
                    : retryLater(lease, scopeOrg, attempt, reason, failure, calls);
        } catch (RuntimeException writeFailed) {
            // The row keeps its lease, which expires; a later claim picks it up and counts one more attempt.
            if (DatabaseUnavailable.isCauseOf(writeFailed)) {
                LOG.info("Could not record the failure of conflict {}, the database is unavailable ({}); its "
                        + "lease will expire instead", lease.conflictId(), DatabaseUnavailable.describe(writeFailed));
            } else {
                LOG.warn("Could not record the failure of conflict {}; its lease will expire instead",
                        lease.conflictId(), writeFailed);
            }
            return Outcome.TRANSIENT_FAILURE;
        }
    }

    /**
     * The database went away under the attempt: nothing is wrong with the conflict, so the attempt does not
     * count. The tracker is not told, the marker is never stamped, and the lease is handed back with its attempt
     * taken back, to be claimed again after the first backoff. The hand-back is tried again while the lease
     * lasts (the database may be back in a moment, or a connection slot free up); if it never gets through, the
     * lease runs out and the next claim counts it as it would after a crash, unless a database restart explains
     * it (see {@link ConflictWork}).
     */
    private Outcome cutShortByTheDatabase(Lease lease, UUID scopeOrg, int attempt, FailureReason reason,
                                          Throwable failure, List<UsageLedger.Entry> calls) {
        LOG.info("Attempt {} at conflict {} was cut short ({}), the database is unavailable ({}); it does not "
                + "count", attempt, lease.conflictId(), reason.label(), DatabaseUnavailable.describe(failure));
        RetryPause pause = new RetryPause(HAND_BACK_RETRY_FIRST, HAND_BACK_RETRY_LAST);
        while (true) {
            try {
                boolean released = transactions.inOrg(scopeOrg, handle -> {
                    UsageLedger.recordUnstored(handle, lease.orgId(), lease.conflictId(), attempt, calls);
                    if (!ConflictLeases.handBack(handle, lease, reason.label(), policy.delayAfter(1))) {
                        return false;
                    }
                    AttemptHistory.append(handle, lease.orgId(), lease.conflictId(), attempt,
                            AttemptHistory.DEFERRED, "database_unavailable", "cut short at " + reason.label());
                    return true;
                });
                return released ? Outcome.TRANSIENT_FAILURE : Outcome.SKIPPED;
            } catch (RuntimeException writeFailed) {
                Duration wait = pause.next();
                if (!DatabaseUnavailable.isCauseOf(writeFailed) || !lease.heldUntil().allows(wait)) {
                    LOG.info("Could not hand conflict {} back ({}); its lease will expire instead",
                            lease.conflictId(), DatabaseUnavailable.describe(writeFailed));
                    return Outcome.TRANSIENT_FAILURE;
                }
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    LOG.info("Stopped handing conflict {} back; its lease will expire instead", lease.conflictId());
                    return Outcome.TRANSIENT_FAILURE;
                }
            }
        }
    }

    private Outcome retryLater(Lease lease, UUID scopeOrg, int attempt, FailureReason reason, Throwable failure,
                               List<UsageLedger.Entry> calls) {
        var delay = policy.delayAfter(attempt);
        Optional<ConflictLeases.Release> release = transactions.inOrg(scopeOrg, handle -> {
            UsageLedger.recordUnstored(handle, lease.orgId(), lease.conflictId(), attempt, calls);
            Optional<ConflictLeases.Release> released = ConflictLeases.releaseForRetry(handle, lease, reason, delay);
            if (released.isPresent()) {
                AttemptHistory.append(handle, lease.orgId(), lease.conflictId(), attempt,
                        AttemptHistory.TRANSIENT_FAILURE, reason.label(), failure.getMessage());
            }
            return released;
        });
        if (release.isEmpty()) {
            return Outcome.SKIPPED;
        }
        retries.accept(new RetryScheduled(lease.conflictId(), attempt, reason, delay,
                release.get().releasedAt(), release.get().notBefore()));
        return Outcome.TRANSIENT_FAILURE;
    }

    private Outcome markPermanent(Lease lease, UUID scopeOrg, int attempt, FailureReason reason, Throwable failure,
                                  List<UsageLedger.Entry> calls) {
        boolean marked = transactions.inOrg(scopeOrg, handle -> {
            UsageLedger.recordUnstored(handle, lease.orgId(), lease.conflictId(), attempt, calls);
            if (!ConflictLeases.markPermanent(handle, lease, reason)) {
                return false;
            }
            AttemptHistory.append(handle, lease.orgId(), lease.conflictId(), attempt,
                    AttemptHistory.PERMANENT_FAILURE, reason.label(), failure.getMessage());
            ObjectNode details = json.createObjectNode()
                    .put("attempts", attempt)
                    .put("max_attempts", policy.maxAttempts())
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
