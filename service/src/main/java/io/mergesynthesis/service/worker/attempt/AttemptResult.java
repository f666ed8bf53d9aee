package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.Outcome;
import io.mergesynthesis.service.worker.store.Lease;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * How one attempt at a leased conflict ends, as the attempt runner decides it: every way a lease can end, and
 * nothing written yet. The {@link AttemptCompleter} writes each of them the same way (fenced on the lease, under
 * the conflict's org scope, with the provider calls it paid for), so that the runner decides and never writes.
 */
sealed interface AttemptResult {

    /** The lease whose fence guards the write. */
    Lease lease();

    /** The org whose scope the write runs under: the lease's own, except in tests of a wrong scope. */
    UUID scopeOrg();

    /** The number of the attempt the write records (its history line, its ledger rows). */
    int attempt();

    /** The ledger rows of the provider calls paid for on the way, written whether or not the fence lets the rest. */
    List<UsageLedger.Entry> calls();

    /**
     * The outcome to report once the write applied; null when the lease was handed back and so no attempt is
     * reported.
     */
    Outcome reported();

    /** The outcome to report when the write applied ({@code applied}) or found the lease gone. */
    default Outcome outcome(boolean applied) {
        return applied ? reported() : Outcome.SKIPPED;
    }

    /**
     * The outcome to report when the write never got through and the lease is left to expire: as if it had
     * applied, unless the kind says otherwise.
     */
    default Outcome unwritten() {
        return reported();
    }

    /** A suggested merge to store, with its "merge synthesized" event. */
    record Stored(Lease lease, UUID scopeOrg, int attempt, String mergeJson, String eventDetailsJson,
                  List<UsageLedger.Entry> calls) implements AttemptResult {

        /** A merge that cost no provider call. */
        Stored(Lease lease, UUID scopeOrg, String mergeJson, String eventDetailsJson) {
            this(lease, scopeOrg, lease.attempts(), mergeJson, eventDetailsJson, List.of());
        }

        @Override
        public Outcome reported() {
            return Outcome.SUCCESS;
        }

        /** Never reported: a store that cannot be written becomes a failure of its own (see the runner). */
        @Override
        public Outcome unwritten() {
            return Outcome.TRANSIENT_FAILURE;
        }
    }

    /** A counted failure with attempts left: pending again after {@code delay}. */
    record Retry(Lease lease, UUID scopeOrg, int attempt, FailureReason reason, String detail, Duration delay,
                 List<UsageLedger.Entry> calls) implements AttemptResult {

        @Override
        public Outcome reported() {
            return Outcome.TRANSIENT_FAILURE;
        }
    }

    /** The last counted failure: the permanent marker, and a "synthesis failed permanently" event. */
    record GiveUp(Lease lease, UUID scopeOrg, int attempt, FailureReason reason, String detail, int maxAttempts,
                  List<UsageLedger.Entry> calls) implements AttemptResult {

        @Override
        public Outcome reported() {
            return Outcome.PERMANENT_FAILURE;
        }

        /** The lease expires and the next claim gives up again, from the durable count. */
        @Override
        public Outcome unwritten() {
            return Outcome.TRANSIENT_FAILURE;
        }

        /** The event's details: what a security team needs to read it on its own. */
        String eventDetailsJson() {
            return GivenUpEvent.details(attempt, maxAttempts, reason);
        }
    }

    /**
     * The lease given back uncounted, for a reason that is not the conflict's: pending again after {@code delay},
     * the claim's attempt taken back.
     *
     * @param why     why the lease goes back
     * @param reason  the history's name for it ({@link Why#UNSTARTED} writes no history)
     * @param lastFailureReason the failure to record on the row, or null to keep the last one
     */
    record HandBack(Lease lease, UUID scopeOrg, int attempt, Why why, String reason, String lastFailureReason,
                    String detail, Duration delay, List<UsageLedger.Entry> calls) implements AttemptResult {

        /** A lease no worker started (the pool stopping): claimable at once, nothing recorded. */
        static HandBack unstarted(Lease lease, UUID scopeOrg) {
            return new HandBack(lease, scopeOrg, lease.attempts(), Why.UNSTARTED, null, null, null, Duration.ZERO,
                    List.of());
        }

        /** The history's outcome for this hand-back, or null when it writes no history line. */
        String historyOutcome() {
            return why == Why.UNSTARTED ? null : AttemptHistory.DEFERRED;
        }

        /** A hand-back for a database that cut the attempt short is still reported, as a transient failure. */
        @Override
        public Outcome reported() {
            return why == Why.DATABASE_UNAVAILABLE ? Outcome.TRANSIENT_FAILURE : null;
        }
    }

    /**
     * The lease ended uncounted and the conflict left in {@code state} ({@code waiting_budget},
     * {@code not_needed}), outside the claimable index.
     */
    record Park(Lease lease, UUID scopeOrg, int attempt, String state, String reason, String detail)
            implements AttemptResult {

        @Override
        public List<UsageLedger.Entry> calls() {
            return List.of();
        }

        @Override
        public Outcome reported() {
            return null;
        }
    }

    /** The lease had passed to another holder before anything was written: nothing to write. */
    record Skipped(Lease lease, UUID scopeOrg, int attempt) implements AttemptResult {

        @Override
        public List<UsageLedger.Entry> calls() {
            return List.of();
        }

        @Override
        public Outcome reported() {
            return Outcome.SKIPPED;
        }
    }

    /** Why a lease is handed back uncounted. */
    enum Why {
        /** No worker started it: the pool was stopping. */
        UNSTARTED,
        /** The synthesizer, or the lease's time left, put the attempt off (a rate limit, an outage, ...). */
        DEFERRED,
        /** The database went away under the attempt. */
        DATABASE_UNAVAILABLE
    }
}
