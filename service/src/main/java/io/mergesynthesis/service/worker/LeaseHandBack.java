package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a lease back without counting its attempt, for reasons that are not the conflict's: a provider that asks
 * to wait, an org whose budget is spent, a conflict resolved before its synthesis began. The calls paid for on
 * the way (a rate-limited answer, say) are written to the usage ledger in the same transaction, and the reason to
 * the conflict's attempt history. Every write is fenced on the lease and runs under the conflict's org scope.
 */
final class LeaseHandBack {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseHandBack.class);

    private final ScopedTransactions transactions;

    LeaseHandBack(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /**
     * Pending again, claimable after the deferral's wait: the attempt's outcome, which is null when handed back
     * (no attempt to count) and {@link Outcome#SKIPPED} when the lease had passed to someone else. When the
     * database cannot be reached the lease expires instead, and the next claim counts it.
     */
    Outcome deferred(Lease lease, UUID scopeOrg, int attempt, AttemptDeferred deferral) {
        List<UsageLedger.Entry> calls = deferral.calls();
        try {
            return transactions.inOrg(scopeOrg, handle -> {
                UsageLedger.recordUnstored(handle, lease.orgId(), lease.conflictId(), attempt, calls);
                if (!ConflictLeases.handBack(handle, lease, null, deferral.retryAfter())) {
                    return Outcome.SKIPPED;
                }
                AttemptHistory.append(handle, lease.orgId(), lease.conflictId(), attempt, AttemptHistory.DEFERRED,
                        deferral.reason(), deferral.getMessage());
                return null;
            });
        } catch (RuntimeException e) {
            LOG.info("Could not hand conflict {} back after a deferral ({}); its lease will expire instead",
                    lease.conflictId(), DatabaseUnavailable.describe(e));
            return null;
        }
    }

    /**
     * Leaves the conflict in {@code state} ({@code waiting_budget}, {@code not_needed}), uncounted and outside
     * the claimable index. The outcome as for {@link #deferred}; a database failure is thrown.
     */
    Outcome park(Lease lease, UUID scopeOrg, int attempt, String state, String reason, String detail) {
        return transactions.inOrg(scopeOrg, handle -> {
            if (!ConflictLeases.park(handle, lease, state)) {
                return Outcome.SKIPPED;
            }
            AttemptHistory.append(handle, lease.orgId(), lease.conflictId(), attempt, AttemptHistory.DEFERRED,
                    reason, detail);
            return null;
        });
    }

    /** Gives back a lease no worker started: claimable at once, and its attempt not counted. */
    boolean unstarted(Lease lease, UUID scopeOrg) {
        return transactions.inOrg(scopeOrg, handle -> ConflictLeases.handBack(handle, lease, null,
                Duration.ZERO));
    }
}
