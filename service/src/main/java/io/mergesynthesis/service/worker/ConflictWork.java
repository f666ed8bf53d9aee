package io.mergesynthesis.service.worker;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.synthesis.SuggestedMergeJson;
import io.mergesynthesis.service.worker.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * One attempt at one claimed conflict: load it under its org's scope, ask the router for a model, call the
 * synthesizer (no transaction or connection held meanwhile), validate what came back, and store it with a
 * "merge synthesized" event in one transaction fenced on the lease. Every failure goes to the
 * {@link FailureHandler}; the attempt's {@link Outcome} is the return value.
 */
final class ConflictWork {

    private static final TypeReference<List<PolicyRule>> RULES = new TypeReference<>() {
    };

    private final ScopedTransactions transactions;
    private final Router router;
    private final SynthesisCall call;
    private final SuggestedMergeJson mergeJson;
    private final FailureHandler failures;
    private final AttemptTracker tracker;
    private final int maxAttempts;
    private final SynthesisMetrics metrics;
    private final Clock clock;
    private final UnaryOperator<UUID> orgScope;
    private final BooleanSupplier stopping;
    private final ObjectMapper json = JsonMapper.builder().findAndAddModules().build();

    ConflictWork(ScopedTransactions transactions, Router router, SynthesisCall call, SuggestedMergeJson mergeJson,
                 FailureHandler failures, AttemptTracker tracker, int maxAttempts, SynthesisMetrics metrics,
                 Clock clock, UnaryOperator<UUID> orgScope, BooleanSupplier stopping) {
        this.transactions = transactions;
        this.router = router;
        this.call = call;
        this.mergeJson = mergeJson;
        this.failures = failures;
        this.tracker = tracker;
        this.maxAttempts = maxAttempts;
        this.metrics = metrics;
        this.clock = clock;
        this.orgScope = orgScope;
        this.stopping = stopping;
    }

    /** Works on one leased conflict; empty when the pool was stopping and the lease was handed back unused. */
    Optional<Outcome> run(Lease lease) {
        UUID scopeOrg = orgScope.apply(lease.orgId());
        if (stopping.getAsBoolean()) {
            handBack(lease, scopeOrg);
            return Optional.empty();
        }
        Instant started = clock.instant();
        metrics.started();
        Outcome outcome = null;
        try {
            outcome = attempt(lease, scopeOrg);
            return Optional.ofNullable(outcome);
        } finally {
            metrics.finished();
            if (outcome != null) {
                metrics.attempted(outcome, Duration.between(started, clock.instant()));
            }
        }
    }

    /** Null when the lease was handed back before the synthesizer was called. */
    private Outcome attempt(Lease lease, UUID scopeOrg) {
        // The claim counted this attempt in the durable column; the tracker may know of more (see the ADR).
        int before = Math.max(tracker.failuresOf(lease.conflictId()), lease.attempts() - 1);
        if (before >= maxAttempts) {
            return failures.failed(lease, scopeOrg, lease.attempts(), new AttemptFailure(
                    FailureReason.MAX_ATTEMPTS_EXCEEDED, "claimed " + lease.attempts() + " times, more than the "
                    + maxAttempts + " attempts allowed (earlier holders stopped before finishing)"));
        }
        int attempt = before + 1;
        try {
            Optional<ConflictSnapshot> snapshot = load(lease, scopeOrg);
            if (snapshot.isEmpty()) {
                return Outcome.SKIPPED;
            }
            ResolvedModel model = route(lease.orgId());
            if (stopping.getAsBoolean()) {
                handBack(lease, scopeOrg);
                return null;
            }
            SuggestedMerge merge = call.invoke(snapshot.get(), model);
            String stored = validate(merge, lease.conflictId());
            if (!store(lease, scopeOrg, stored, merge, attempt)) {
                return Outcome.SKIPPED;
            }
            tracker.forget(lease.conflictId());
            return Outcome.SUCCESS;
        } catch (Exception | LinkageError failure) {
            return failures.failed(lease, scopeOrg, attempt, failure);
        }
    }

    /** Empty when the row is visible but its lease is no longer this worker's. */
    private Optional<ConflictSnapshot> load(Lease lease, UUID scopeOrg) throws AttemptFailure {
        boolean[] scoped = {false};
        Optional<LeasedRow> row;
        try {
            row = transactions.inOrg(scopeOrg, handle -> {
                scoped[0] = true;
                return ConflictLeases.load(handle, lease.conflictId());
            });
        } catch (RuntimeException e) {
            throw new AttemptFailure(scoped[0] ? FailureReason.LOAD_ROW : FailureReason.SET_ORG_ID,
                    "could not read conflict " + lease.conflictId() + " under org " + scopeOrg, e);
        }
        if (row.isEmpty()) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + lease.conflictId() + " is not visible under org " + scopeOrg);
        }
        if (!row.get().heldBy(lease)) {
            return Optional.empty();
        }
        try {
            return Optional.of(snapshot(row.get()));
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + lease.conflictId() + " could not be read as a snapshot", e);
        }
    }

    private ConflictSnapshot snapshot(LeasedRow row) throws Exception {
        return new ConflictSnapshot(row.id(), row.orgId(), row.dedupKey(),
                Action.valueOf(row.action().toUpperCase(Locale.ROOT)), row.target(),
                json.readValue(row.rulesJson(), RULES), row.winnerPolicyId(), row.detectedAt());
    }

    private ResolvedModel route(UUID orgId) throws AttemptFailure {
        try {
            return router.resolve(Router.MERGE_SYNTHESIS, orgId);
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.ROUTER_RESOLVE, "no model for org " + orgId, e);
        }
    }

    /** The canonical text to store, once the merge has passed the schema and names this conflict. */
    private String validate(SuggestedMerge merge, UUID conflictId) throws AttemptFailure {
        if (merge == null) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the synthesizer returned no merge");
        }
        List<String> problems;
        try {
            JsonNode tree = mergeJson.toTree(merge);
            problems = mergeJson.violations(tree, conflictId);
        } catch (RuntimeException e) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge cannot be written as JSON", e);
        }
        if (!problems.isEmpty()) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge breaks the schema: " + problems);
        }
        return mergeJson.toJson(merge);
    }

    private boolean store(Lease lease, UUID scopeOrg, String stored, SuggestedMerge merge, int attempt)
            throws AttemptFailure {
        ObjectNode details = json.createObjectNode()
                .put("attempt", attempt)
                .put("synthesizer", merge.producedBy().synthesizer())
                .put("provider", merge.producedBy().provider())
                .put("model", merge.producedBy().model());
        try {
            return transactions.inOrg(scopeOrg,
                    handle -> ConflictLeases.storeMerge(handle, lease, stored, details.toString()));
        } catch (RuntimeException e) {
            throw new AttemptFailure(FailureReason.WRITE_MERGE,
                    "could not store the merge of conflict " + lease.conflictId(), e);
        }
    }

    /** Gives an unused lease back: claimable at once, and its attempt not counted. */
    private void handBack(Lease lease, UUID scopeOrg) {
        transactions.inOrg(scopeOrg, handle -> ConflictLeases.releaseUnstarted(handle, lease));
    }
}
