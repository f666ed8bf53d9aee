package io.mergesynthesis.service.worker;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.synthesis.SuggestedMergeJson;
import io.mergesynthesis.service.worker.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at one claimed conflict: load it under its org's scope (or take the row the claim's read-ahead
 * found), ask the router for a model, call the synthesizer (no transaction or connection held meanwhile),
 * validate what came back, and hand it to the {@link MergeCompleter}, which stores it with a "merge
 * synthesized" event in one transaction fenced on the lease. Every failure goes to the {@link FailureHandler};
 * the attempt's {@link Outcome} is the returned stage's value.
 */
final class ConflictWork {

    private static final Logger LOG = LoggerFactory.getLogger(ConflictWork.class);
    private static final TypeReference<List<PolicyRule>> RULES = new TypeReference<>() {
    };

    private final ScopedTransactions transactions;
    private final Router router;
    private final SynthesisCall call;
    private final MergeCompleter completer;
    private final SuggestedMergeJson mergeJson;
    private final FailureHandler failures;
    private final LeaseHandBack handBacks;
    private final AttemptTracker tracker;
    private final RetryPolicy policy;
    private final SynthesisMetrics metrics;
    private final Clock clock;
    private final UnaryOperator<UUID> orgScope;
    private final BooleanSupplier stopping;
    private final Consumer<Duration> providerPause;
    private final ObjectMapper json = JsonMapper.builder().findAndAddModules().build();

    ConflictWork(ScopedTransactions transactions, Router router, SynthesisCall call, MergeCompleter completer,
                 SuggestedMergeJson mergeJson, FailureHandler failures, LeaseHandBack handBacks,
                 AttemptTracker tracker, RetryPolicy policy,
                 SynthesisMetrics metrics, Clock clock, UnaryOperator<UUID> orgScope, BooleanSupplier stopping,
                 Consumer<Duration> providerPause) {
        this.transactions = transactions;
        this.router = router;
        this.call = call;
        this.completer = completer;
        this.mergeJson = mergeJson;
        this.failures = failures;
        this.handBacks = handBacks;
        this.tracker = tracker;
        this.policy = policy;
        this.metrics = metrics;
        this.clock = clock;
        this.orgScope = orgScope;
        this.stopping = stopping;
        this.providerPause = providerPause;
    }

    /**
     * Works on one leased conflict, up to handing its merge to the completer; the returned stage completes with
     * the attempt's outcome once the merge is stored (or the attempt failed), and is empty when the pool was
     * stopping and the lease was handed back unused.
     */
    CompletableFuture<Optional<Outcome>> run(Lease lease, LeaseReader.ReadAhead readAhead) {
        UUID scopeOrg = orgScope.apply(lease.orgId());
        if (stopping.getAsBoolean()) {
            handBack(lease, scopeOrg);
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Instant started = clock.instant();
        metrics.started();
        CompletableFuture<Outcome> attempted;
        try {
            attempted = attempt(lease, scopeOrg, readAhead);
        } catch (RuntimeException | Error e) {
            metrics.finished();
            throw e;
        }
        return attempted.whenComplete((outcome, error) -> {
            metrics.finished();
            if (outcome != null) {
                metrics.attempted(outcome, Duration.between(started, clock.instant()));
            }
        }).thenApply(Optional::ofNullable);
    }

    /**
     * Completes with null when the lease was handed back uncounted: before the synthesizer was called (the pool
     * stopping, a resolved conflict, a spent budget, a lease too short for a call) or because the provider asked
     * to wait.
     */
    private CompletableFuture<Outcome> attempt(Lease lease, UUID scopeOrg, LeaseReader.ReadAhead readAhead) {
        // The claim counted this attempt in the durable column; the tracker may know of more (see ADR 0005),
        // unless what it knows is from before a re-queue reset the count (it tells by the lease's count).
        // A lease cut by a database restart was not ended by its conflict: that claim is not held against it.
        int claimsBefore = lease.attempts() - 1 - (lease.cutByRestart() ? 1 : 0);
        int before = Math.max(tracker.failuresOf(lease.conflictId(), lease.attempts()), claimsBefore);
        if (policy.exhausted(before)) {
            return done(failures.failed(lease, scopeOrg, lease.attempts(), new AttemptFailure(
                    FailureReason.MAX_ATTEMPTS_EXCEEDED, "claimed " + lease.attempts() + " times, more than the "
                    + policy.maxAttempts() + " attempts allowed (earlier holders stopped before finishing)")));
        }
        int attempt = before + 1;
        MergeCompleter.Finished finished;
        try {
            Optional<LeasedRow> row = load(lease, scopeOrg, readAhead.rowOf(lease));
            if (row.isEmpty()) {
                return done(Outcome.SKIPPED);
            }
            if (row.get().resolved()) {
                // Spend discipline: nobody needs a merge for a decision already taken.
                return park(lease, scopeOrg, attempt, "not_needed", "resolved", "resolved before synthesis began");
            }
            if (row.get().budgetReached()) {
                return park(lease, scopeOrg, attempt, "waiting_budget", "budget",
                        "the org's month-to-date spend has reached its monthly budget");
            }
            ConflictSnapshot snapshot = snapshot(lease, row.get());
            ResolvedModel model = route(lease.orgId(), row.get().orgModel());
            if (stopping.getAsBoolean()) {
                handBack(lease, scopeOrg);
                return done(null);
            }
            if (!lease.heldUntil().allows(call.invokeTimeout())) {
                // A call that could outlive the lease might be paid for twice: another replica would claim it.
                throw new AttemptDeferred("lease_too_short", Duration.ZERO, false, "less than the invoke timeout of "
                        + call.invokeTimeout() + " was left on the lease", List.of());
            }
            Synthesis synthesis = call.invoke(snapshot, model, early -> recordEarly(lease, scopeOrg, attempt, early));
            List<UsageLedger.Entry> calls = PaidCalls.entries(synthesis.calls());
            String stored = validate(synthesis.merge(), lease.conflictId(), calls);
            finished = new MergeCompleter.Finished(lease, scopeOrg, stored, eventDetails(synthesis.merge(), attempt),
                    attempt, calls);
        } catch (AttemptDeferred deferral) {
            metrics.deferred();
            if (deferral.providerPaused()) {
                providerPause.accept(deferral.retryAfter());
            }
            LOG.debug("Attempt {} at conflict {} deferred ({}): {}", attempt, lease.conflictId(), deferral.reason(),
                    deferral.getMessage());
            return done(handBacks.deferred(lease, scopeOrg, attempt, deferral));
        } catch (Exception | LinkageError failure) {
            return done(failures.failed(lease, scopeOrg, attempt, failure));
        }
        return completer.store(finished).handle((stored, writeFailed) -> {
            if (writeFailed != null) {
                return failures.failed(lease, scopeOrg, attempt, new AttemptFailure(FailureReason.WRITE_MERGE,
                        "could not store the merge of conflict " + lease.conflictId(), writeFailed,
                        finished.calls()));
            }
            if (!stored) {
                return Outcome.SKIPPED;
            }
            tracker.forget(lease.conflictId());
            return Outcome.SUCCESS;
        });
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

    /** Leaves the conflict in {@code state}, uncounted; on a database failure its lease expires instead. */
    private CompletableFuture<Outcome> park(Lease lease, UUID scopeOrg, int attempt, String state, String reason,
                                            String detail) {
        try {
            return done(handBacks.park(lease, scopeOrg, attempt, state, reason, detail));
        } catch (RuntimeException e) {
            LOG.info("Could not move conflict {} to {} ({}); its lease will expire instead", lease.conflictId(),
                    state, DatabaseUnavailable.describe(e));
            return done(null);
        }
    }

    private static CompletableFuture<Outcome> done(Outcome outcome) {
        return CompletableFuture.completedFuture(outcome);
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

    private ConflictSnapshot snapshot(Lease lease, LeasedRow row) throws AttemptFailure {
        try {
            return snapshot(row);
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + lease.conflictId() + " could not be read as a snapshot", e);
        }
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

    private ConflictSnapshot snapshot(LeasedRow row) throws Exception {
        return new ConflictSnapshot(row.id(), row.orgId(), row.dedupKey(),
                Action.valueOf(row.action().toUpperCase(Locale.ROOT)), row.target(),
                json.readValue(row.rulesJson(), RULES), row.winnerPolicyId(), row.detectedAt());
    }

    /** @param orgModel the org's model setting, read with the conflict: the router need not read it again */
    private ResolvedModel route(UUID orgId, String orgModel) throws AttemptFailure {
        try {
            return router.resolve(Router.MERGE_SYNTHESIS, orgId, orgModel);
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.ROUTER_RESOLVE, "no model for org " + orgId, e);
        }
    }

    /** The canonical text to store, once the merge has passed the schema and names this conflict. */
    private String validate(SuggestedMerge merge, UUID conflictId, List<UsageLedger.Entry> calls)
            throws AttemptFailure {
        List<String> problems;
        try {
            JsonNode tree = mergeJson.toTree(merge);
            problems = mergeJson.violations(tree, conflictId);
        } catch (RuntimeException e) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge cannot be written as JSON", e, calls);
        }
        if (!problems.isEmpty()) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge breaks the schema: " + problems, null,
                    calls);
        }
        return mergeJson.toJson(merge);
    }

    private String eventDetails(SuggestedMerge merge, int attempt) {
        return json.createObjectNode()
                .put("attempt", attempt)
                .put("synthesizer", merge.producedBy().synthesizer())
                .put("provider", merge.producedBy().provider())
                .put("model", merge.producedBy().model())
                .toString();
    }

    /** Gives back a lease no worker started, under the lease's own org scope; see {@link #handBack(Lease, UUID)}. */
    void handBack(Lease lease) {
        handBack(lease, orgScope.apply(lease.orgId()));
    }

    /** Gives an unused lease back: claimable at once, and its attempt not counted. */
    private void handBack(Lease lease, UUID scopeOrg) {
        handBacks.unstarted(lease, scopeOrg);
    }
}
