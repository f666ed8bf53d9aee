package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.policy.AttemptTracker;
import io.mergesynthesis.service.worker.policy.RetryPolicy;
import io.mergesynthesis.service.worker.store.Lease;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a conflict's attempts across claims, replicas and restarts, and decides with the {@link RetryPolicy}
 * what a failure leads to: another try after the policy's delay, the marker once the policy says the attempts
 * are used up, or a hand-back when the failure does not count. It decides only; the completer writes.
 */
public final class AttemptCounter {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptCounter.class);

    private final AttemptTracker tracker;
    private final RetryPolicy policy;
    private final SynthesisMetrics metrics;

    public AttemptCounter(AttemptTracker tracker, RetryPolicy policy, SynthesisMetrics metrics) {
        this.tracker = tracker;
        this.policy = policy;
        this.metrics = metrics;
    }

    /**
     * Attempts the conflict has had before this lease's. The claim counted this one in the durable column; the
     * tracker may know of more (see ADR 0005), unless what it knows is from before a re-queue reset the count (it
     * tells by the lease's count). A lease cut by a database restart was not ended by its conflict: that claim is
     * not held against it.
     */
    int attemptsBefore(Lease lease) {
        int claimsBefore = lease.attempts() - 1 - (lease.cutByRestart() ? 1 : 0);
        return Math.max(tracker.failuresOf(lease.conflictId(), lease.attempts()), claimsBefore);
    }

    /** Whether a conflict that has had {@code attemptsMade} attempts gets the marker instead of another. */
    boolean exhausted(int attemptsMade) {
        return policy.exhausted(attemptsMade);
    }

    /** The limit, for messages. */
    int maxAttempts() {
        return policy.maxAttempts();
    }

    /**
     * What attempt number {@code attempt} having failed with {@code failure} leads to. A failure that the
     * database being unavailable explains does not count: the lease goes back with its attempt taken back, to be
     * claimed again after the first backoff, and the tracker is not told.
     */
    AttemptResult afterFailure(Lease lease, UUID scopeOrg, int attempt, Throwable failure) {
        FailureReason reason = AttemptFailure.reasonOf(failure);
        metrics.failed(reason);
        var calls = AttemptFailure.callsOf(failure);
        if (!policy.counts(reason, failure)) {
            LOG.info("Attempt {} at conflict {} was cut short ({}), the database is unavailable ({}); it does not "
                    + "count", attempt, lease.conflictId(), reason.label(), DatabaseUnavailable.describe(failure));
            return new AttemptResult.HandBack(lease, scopeOrg, attempt, AttemptResult.Why.DATABASE_UNAVAILABLE,
                    "database_unavailable", reason.label(), "cut short at " + reason.label(), policy.delayAfter(1),
                    calls);
        }
        tracker.recordFailure(lease.conflictId(), attempt, lease.attempts());
        if (reason == FailureReason.UNKNOWN) {
            LOG.error("Attempt {} at conflict {} failed unexpectedly", attempt, lease.conflictId(), failure);
        } else {
            LOG.info("Attempt {} at conflict {} failed ({}): {}", attempt, lease.conflictId(), reason.label(),
                    failure.getMessage());
        }
        String shown = AttemptFailure.shownOf(failure);
        return policy.exhausted(attempt)
                ? new AttemptResult.GiveUp(lease, scopeOrg, attempt, reason, shown, policy.maxAttempts(), calls)
                : new AttemptResult.Retry(lease, scopeOrg, attempt, reason, shown, policy.delayAfter(attempt), calls);
    }

    /** The conflict is done with (a merge stored, the marker stamped): its failures need not be remembered. */
    void forget(UUID conflictId) {
        tracker.forget(conflictId);
    }
}
