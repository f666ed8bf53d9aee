package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.Outcome;
import io.mergesynthesis.service.worker.RetryScheduled;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at one claimed conflict: load it under its org's scope (or take the row the claim's read-ahead
 * found), make its merge ({@link MergeMaker}: no transaction or connection held meanwhile), and decide how the
 * attempt ends ({@link AttemptResult}), every failure through the {@link AttemptCounter}. The
 * {@link AttemptCompleter} writes that end; the attempt's {@link Outcome} is the returned stage's value.
 */
public final class AttemptRunner {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptRunner.class);

    /** What the runner needs of the pool that runs it. */
    public interface Pool {
        /** True once the pool stops: no synthesizer call starts any more. */
        boolean stopping();

        /**
         * {@code provider} asked the whole replica to wait this long: nothing of its routes is claimed meanwhile.
         *
         * @param defaultRoute true when the deferred conflict's org has no model of its own, so that its route is
         *                     the configured primary's
         */
        void pauseClaims(String provider, boolean defaultRoute, Duration retryAfter);
    }

    /**
     * What the runner tells of each merge: how long it held its worker, told as it is handed in to be stored
     * (before the worker takes its next lease), and how long it then waited for its store, told once stored.
     */
    public interface Pace {
        /**
         * Told of every merge made, and of every attempt that paid for provider calls, merge or not.
         *
         * @param workNanos from the worker taking the lease to the attempt's end handed in
         * @param paid      whether the attempt cost provider calls
         */
        void made(long workNanos, boolean paid);

        /** @param storeNanos from a merge handed in until its store committed */
        void stored(long storeNanos);
    }

    private final ScopedTransactions transactions;
    private final MergeMaker merges;
    private final AttemptCounter counter;
    private final AttemptCompleter completer;
    private final SynthesisMetrics metrics;
    private final Clock clock;
    private final Pool pool;
    private final Consumer<RetryScheduled> retries;
    private final AttemptSpans spans;
    private final Ticker ticker;
    private final Pace pace;

    /**
     * @param retries told of every failed conflict released for a retry, with the backoff written
     * @param spans   where each attempt's span goes; {@link AttemptSpans#OFF} traces nothing
     * @param ticker  what each merge's {@code pace} is timed on
     */
    public AttemptRunner(ScopedTransactions transactions, MergeMaker merges, AttemptCounter counter,
                         AttemptCompleter completer, SynthesisMetrics metrics, Clock clock, Pool pool,
                         Consumer<RetryScheduled> retries, AttemptSpans spans, Ticker ticker, Pace pace) {
        this.spans = spans;
        this.ticker = ticker;
        this.pace = pace;
        this.transactions = transactions;
        this.merges = merges;
        this.counter = counter;
        this.completer = completer;
        this.metrics = metrics;
        this.clock = clock;
        this.pool = pool;
        this.retries = retries;
    }

    /**
     * Works on one leased conflict; the returned stage completes with the attempt's outcome once its end is
     * written, and is empty when the pool was stopping and the lease was handed back unused.
     */
    public CompletableFuture<Optional<Outcome>> run(Lease lease, LeaseReader.ReadAhead readAhead) {
        // Every transaction of the attempt is scoped to the org the claim returned for the row.
        UUID scopeOrg = lease.orgId();
        if (pool.stopping()) {
            return handBack(lease, scopeOrg).thenApply(outcome -> Optional.empty());
        }
        Instant started = clock.instant();
        long began = ticker.nanos();
        metrics.started();
        CompletableFuture<Outcome> attempted;
        long handedIn;
        try {
            AttemptResult result = spans.around(lease, () -> attempt(lease, scopeOrg, readAhead));
            handedIn = ticker.nanos();
            boolean paid = !result.calls().isEmpty();
            if (paid || result instanceof AttemptResult.Stored) {
                pace.made(handedIn - began, paid);
            }
            attempted = finish(result);
        } catch (RuntimeException | Error e) {
            metrics.finished();
            throw e;
        }
        return attempted.whenComplete((outcome, error) -> {
            metrics.finished();
            if (outcome != null) {
                metrics.attempted(outcome, Duration.between(started, clock.instant()));
            }
            if (outcome == Outcome.SUCCESS) {
                pace.stored(ticker.nanos() - handedIn);
            }
        }).thenApply(Optional::ofNullable);
    }

    /** Gives back a lease no worker started (the pool stopping), under the lease's own org scope. */
    public CompletableFuture<Outcome> handBack(Lease lease) {
        return handBack(lease, lease.orgId());
    }

    private CompletableFuture<Outcome> handBack(Lease lease, UUID scopeOrg) {
        return finish(AttemptResult.HandBack.unstarted(lease, scopeOrg));
    }

    /** Decides how the attempt ends; writes nothing but calls put on record early. */
    private AttemptResult attempt(Lease lease, UUID scopeOrg, LeaseReader.ReadAhead readAhead) {
        int before = counter.attemptsBefore(lease);
        if (counter.exhausted(before)) {
            return counter.afterFailure(lease, scopeOrg, lease.attempts(), new AttemptFailure(
                    FailureReason.MAX_ATTEMPTS_EXCEEDED, "claimed " + lease.attempts() + " times, more than the "
                    + counter.maxAttempts() + " attempts allowed (earlier holders stopped before finishing)"));
        }
        int attempt = before + 1;
        boolean defaultRoute = true;
        try {
            Optional<LeasedRow> row = load(lease, scopeOrg, readAhead.rowOf(lease));
            if (row.isEmpty()) {
                return new AttemptResult.Skipped(lease, scopeOrg, attempt);
            }
            if (row.get().resolved()) {
                // Spend discipline: nobody needs a merge for a decision already taken.
                return new AttemptResult.Park(lease, scopeOrg, attempt, "not_needed", "resolved",
                        "resolved before synthesis began");
            }
            if (row.get().budgetReached()) {
                metrics.waitedForBudget();
                return new AttemptResult.Park(lease, scopeOrg, attempt, "waiting_budget", "budget",
                        "the org's month-to-date spend has reached its monthly budget");
            }
            defaultRoute = row.get().orgModel() == null;
            MergeMaker.Prepared prepared = merges.prepare(row.get());
            if (pool.stopping()) {
                return AttemptResult.HandBack.unstarted(lease, scopeOrg);
            }
            if (!lease.heldUntil().allows(merges.invokeTimeout())) {
                // A call that could outlive the lease might be paid for twice: another replica would claim it.
                throw new AttemptDeferred("lease_too_short", Duration.ZERO, false, "less than the invoke timeout of "
                        + merges.invokeTimeout() + " was left on the lease", List.of());
            }
            MergeMaker.Made made = merges.make(prepared, attempt,
                    early -> recordEarly(lease, scopeOrg, attempt, early));
            return new AttemptResult.Stored(lease, scopeOrg, attempt, made.mergeJson(), made.eventDetailsJson(),
                    made.calls());
        } catch (AttemptDeferred deferral) {
            metrics.deferred();
            if (deferral.providerPaused()) {
                pool.pauseClaims(deferral.provider(), defaultRoute, deferral.retryAfter());
            }
            LOG.debug("Attempt {} at conflict {} deferred ({}): {}", attempt, lease.conflictId(), deferral.reason(),
                    deferral.getMessage());
            return new AttemptResult.HandBack(lease, scopeOrg, attempt, AttemptResult.Why.DEFERRED,
                    deferral.reason(), null, deferral.shown(), deferral.retryAfter(), deferral.calls());
        } catch (Exception | LinkageError failure) {
            return counter.afterFailure(lease, scopeOrg, attempt, failure);
        }
    }

    /**
     * Has the completer write {@code result} and reports what came of it. A merge that cannot be stored becomes
     * a failure of its own ({@link FailureReason#WRITE_MERGE}), decided and written in turn; any other end that
     * cannot be written leaves its lease to expire, and the next claim counts it.
     */
    private CompletableFuture<Outcome> finish(AttemptResult result) {
        return completer.complete(result).handle((written, failed) -> {
            if (failed == null) {
                return CompletableFuture.completedFuture(report(result, written));
            }
            Lease lease = result.lease();
            if (result instanceof AttemptResult.Stored stored) {
                return finish(counter.afterFailure(lease, stored.scopeOrg(), stored.attempt(), new AttemptFailure(
                        FailureReason.WRITE_MERGE, "could not store the merge of conflict " + lease.conflictId(),
                        failed, stored.calls())));
            }
            if (DatabaseUnavailable.isCauseOf(failed)) {
                LOG.info("Could not write the end of attempt {} at conflict {}, the database is unavailable ({}); "
                        + "its lease will expire instead", result.attempt(), lease.conflictId(),
                        DatabaseUnavailable.describe(failed));
            } else {
                LOG.warn("Could not write the end of attempt {} at conflict {}; its lease will expire instead",
                        result.attempt(), lease.conflictId(), failed);
            }
            return CompletableFuture.completedFuture(result.unwritten());
        }).thenCompose(outcome -> outcome);
    }

    /** The outcome of a written end, once it committed: what the tracker forgets, and the retry reported. */
    private Outcome report(AttemptResult result, AttemptCompleter.Written written) {
        Outcome outcome = result.outcome(written.applied());
        UUID conflictId = result.lease().conflictId();
        if (outcome == Outcome.SUCCESS) {
            counter.forget(conflictId);
        } else if (outcome == Outcome.PERMANENT_FAILURE) {
            counter.forget(conflictId);
            LOG.warn("Conflict {} is marked synthesis_max_attempts_exceeded after attempt {}", conflictId,
                    result.attempt());
        } else if (result instanceof AttemptResult.Retry retry && written.release().isPresent()) {
            ConflictLeases.Release release = written.release().get();
            retries.accept(new RetryScheduled(conflictId, retry.attempt(), retry.reason(), retry.delay(),
                    release.releasedAt(), release.notBefore()));
        }
        return outcome;
    }

    /**
     * Writes a call to the ledger before its attempt ends, as the synthesizer asks ahead of a second call. A write
     * that fails is only logged: the attempt's end writes the call anyway, unless a crash comes first.
     */
    private void recordEarly(Lease lease, UUID scopeOrg, int attempt, ProviderCall call) {
        try {
            transactions.inOrg(scopeOrg, handle -> {
                UsageLedger.recordEarly(handle, lease.orgId(), lease.conflictId(), attempt,
                        PaidCalls.entries(List.of(call)).get(0));
                return null;
            });
        } catch (RuntimeException e) {
            LOG.info("Could not put a call of conflict {} on record early ({}); it is written when the attempt ends",
                    lease.conflictId(), DatabaseUnavailable.describe(e));
        }
    }

    /**
     * Empty when the row is visible but its lease is no longer this worker's. Reads the row unless the claim's
     * read-ahead already did ({@code readAhead} not null).
     */
    private Optional<LeasedRow> load(Lease lease, UUID scopeOrg, Optional<LeasedRow> readAhead)
            throws AttemptFailure {
        Optional<LeasedRow> row = readAhead != null ? readAhead : read(lease, scopeOrg);
        if (row.isEmpty()) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + lease.conflictId() + " is not visible under org " + scopeOrg);
        }
        return row.get().heldBy(lease) ? row : Optional.empty();
    }

    private Optional<LeasedRow> read(Lease lease, UUID scopeOrg) throws AttemptFailure {
        boolean[] scoped = {false};
        try {
            return transactions.inOrg(scopeOrg, handle -> {
                scoped[0] = true;
                return ConflictLeases.load(handle, lease.conflictId());
            });
        } catch (RuntimeException e) {
            throw new AttemptFailure(scoped[0] ? FailureReason.LOAD_ROW : FailureReason.SET_ORG_ID,
                    "could not read conflict " + lease.conflictId() + " under org " + scopeOrg, e);
        }
    }
}
