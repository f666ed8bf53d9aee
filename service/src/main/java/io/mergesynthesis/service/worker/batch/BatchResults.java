package io.mergesynthesis.service.worker.batch;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.BatchAnswer;
import io.mergesynthesis.llm.ProviderBatches;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.attempt.GivenUpEvent;
import io.mergesynthesis.service.worker.attempt.MergeAcceptance;
import io.mergesynthesis.service.worker.attempt.PaidCalls;
import io.mergesynthesis.service.worker.policy.RetryPolicy;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.service.worker.store.Deadline;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the results of an ended batch, each request as one attempt of its conflict and each in its own
 * transaction: taken out of the batch as a lease, then the same merge check and the same lease-fenced store as an
 * interactive answer, with its ledger row. A succeeded answer is stored (or, refused, fails its attempt); an
 * errored request fails its attempt; a failed attempt is tried again after the retry policy's wait, or marked
 * failed for good once the attempts are used up, as in the interactive lane; an expired or canceled one goes back to
 * pending with no attempt counted. A conflict no longer in the batch keeps whatever happened to it, and the answer it was
 * paid for is recorded as discarded. Every ledger row's id and time come from the batch and the conflict, so a
 * result read again after a crash is the same row.
 */
final class BatchResults {

    private static final Logger LOG = LoggerFactory.getLogger(BatchResults.class);
    /** How long a result being stored holds its conflict; a replica that dies meanwhile lets it go so. */
    static final Duration STORE_LEASE = Duration.ofMinutes(5);

    private final ScopedTransactions transactions;
    private final BatchRows rows;
    private final MergeAcceptance acceptance;
    private final RetryPolicy retries;
    private final int maxAnswerBytes;
    private final BatchSecondPass secondPass;

    BatchResults(ScopedTransactions transactions, BatchRows rows, MergeAcceptance acceptance, RetryPolicy retries,
                 int maxAnswerBytes, BatchSecondPass secondPass) {
        this.secondPass = secondPass;
        this.transactions = transactions;
        this.rows = rows;
        this.acceptance = acceptance;
        this.retries = retries;
        this.maxAnswerBytes = maxAnswerBytes;
    }

    /**
     * Stores every result of {@code batch}, the provider's view of {@code row}, which ended at {@code endedAt}.
     *
     * @return what the batch's answers cost at the batch price, whoever stored them
     */
    BigDecimal store(BatchRow row, BatchRoute route, ProviderBatches client, ProviderBatches.Batch batch,
                     Instant endedAt, String owner, PollHold hold)
            throws ProviderBatches.Failed, InterruptedException {
        BigDecimal[] cost = {BigDecimal.ZERO};
        try (Stream<ProviderBatches.Result> results = client.results(batch)) {
            results.forEach(result -> {
                hold.keep();
                Optional<BatchCustomId> id = BatchCustomId.decode(result.customId());
                if (id.isEmpty() || !id.get().batchId().equals(row.id())) {
                    LOG.warn("batch {} ({}) holds a result for custom_id {}, not one of its own: skipped", row.id(),
                            batch.id(), result.customId());
                    return;
                }
                if (result.outcome() == ProviderBatches.Outcome.SUCCEEDED) {
                    cost[0] = cost[0].add(BatchAnswer.call(route.type(), result.answer(), route.provider(),
                            route.model(), route.price(), callId(row, id.get().conflictId()), endedAt).costUsd());
                }
                one(row, route, id.get().conflictId(), result, endedAt, owner);
            });
        }
        return cost[0];
    }

    private void one(BatchRow row, BatchRoute route, UUID conflict, ProviderBatches.Result result, Instant endedAt,
                     String owner) {
        switch (result.outcome()) {
            case SUCCEEDED -> answered(row, route, conflict, result.answer(), endedAt, owner);
            case ERRORED -> errored(row, conflict, result.error(), owner);
            case EXPIRED, CANCELED -> rows.backToPending(row.orgId(), row.id(), conflict);
        }
    }

    /** A conflict taken out of its batch whose answer goes on to an interactive second pass. */
    private record Taken(ConflictSnapshot snapshot, ResolvedModel model, Lease lease) {
    }

    private void answered(BatchRow row, BatchRoute route, UUID conflict, JsonNode message, Instant endedAt,
                          String owner) {
        UUID callId = callId(row, conflict);
        Optional<Taken> taken = transactions.inOrg(row.orgId(), handle -> {
            Optional<Integer> attempts = BatchRows.takeFromBatch(handle, row.id(), conflict, owner, STORE_LEASE);
            Optional<LeasedRow> leased = ConflictLeases.load(handle, conflict);
            if (leased.isEmpty()) {
                return Optional.<Taken>empty();
            }
            if (attempts.isEmpty()) {
                // Paid for all the same: on record once, as discarded; a second reading writes nothing.
                ProviderCall call = BatchAnswer.call(route.type(), message, route.provider(), route.model(),
                        route.price(), callId, endedAt);
                UsageLedger.recordEarly(handle, row.orgId(), conflict, Math.max(1, leased.get().attempts()),
                        entries(List.of(call), callId).get(0));
                return Optional.<Taken>empty();
            }
            Lease lease = lease(row, conflict, owner, attempts.get());
            int attempt = attempts.get();
            OneTripBatch trip = OneTripBatch.tenant();
            if (leased.get().resolved()) {
                ProviderCall call = BatchAnswer.call(route.type(), message, route.provider(), route.model(),
                        route.price(), callId, endedAt);
                ConflictLeases.park(trip, row.orgId(), lease, SynthesisState.NOT_NEEDED.wireName(),
                        new ConflictLeases.Ending(attempt, null, null, null, entries(List.of(call), callId)));
                trip.runWithin(handle.getConnection());
                return Optional.<Taken>empty();
            }
            ConflictSnapshot snapshot = acceptance.snapshotOrNull(leased.get());
            MergeAcceptance.Verdict verdict;
            if (snapshot == null) {
                ProviderCall call = BatchAnswer.call(route.type(), message, route.provider(), route.model(),
                        route.price(), callId, endedAt);
                verdict = new MergeAcceptance.Verdict(null, null, entries(List.of(call), callId),
                        "conflict " + conflict + " could not be read as a snapshot");
            } else {
                Synthesis read = null;
                SynthesisException refused = null;
                try {
                    read = BatchAnswer.read(route.type(), message, snapshot, route.provider(), route.model(),
                            route.price(), maxAnswerBytes, callId, endedAt);
                } catch (SynthesisException e) {
                    refused = e;
                }
                Optional<ResolvedModel> second = secondPass.wanted(row.orgId(), route, read, refused);
                if (second.isPresent()) {
                    // Taken out of the batch now, held by this lease; the interactive pass runs outside any
                    // transaction, and its end is fenced by the lease like any attempt's.
                    return Optional.of(new Taken(snapshot, second.get(), lease));
                }
                verdict = read != null ? acceptance.accept(read, snapshot, attempt, entries(read.calls(), callId))
                        : new MergeAcceptance.Verdict(null, null, entries(refused.calls(), callId),
                        refused.getMessage());
            }
            end(trip, row.orgId(), lease, verdict);
            trip.runWithin(handle.getConnection());
            return Optional.<Taken>empty();
        });
        taken.ifPresent(t -> continueInteractively(row, conflict, message, callId, endedAt, t));
    }

    /**
     * The interactive second pass of a batch answer, then the attempt's end. The batch's call is on record before
     * the interactive call goes; a replica that dies meanwhile leaves the lease to run out, and the results read
     * again find the conflict out of the batch and leave that row as it is.
     */
    private void continueInteractively(BatchRow row, UUID conflict, JsonNode message, UUID callId,
                                       Instant endedAt, Taken taken) {
        int attempt = taken.lease().attempts();
        CallRecorder early = call -> transactions.inOrg(row.orgId(), handle -> {
            UsageLedger.recordEarly(handle, row.orgId(), conflict, attempt, entries(List.of(call), callId).get(0));
            return null;
        });
        MergeAcceptance.Verdict verdict;
        try {
            Synthesis synthesis = secondPass.run(taken.snapshot(), taken.model(), message, callId, endedAt, early);
            verdict = acceptance.accept(synthesis, taken.snapshot(), attempt, entries(synthesis.calls(), callId));
        } catch (SynthesisException e) {
            verdict = new MergeAcceptance.Verdict(null, null, entries(e.calls(), callId), e.getMessage());
        } catch (InterruptedException e) {
            // Stopping: the lease runs out and the conflict is tried again; the batch's call is on record.
            Thread.currentThread().interrupt();
            return;
        }
        MergeAcceptance.Verdict ending = verdict;
        transactions.inOrg(row.orgId(), handle -> {
            OneTripBatch trip = OneTripBatch.tenant();
            end(trip, row.orgId(), taken.lease(), ending);
            trip.runWithin(handle.getConnection());
            return null;
        });
    }

    /** Stores an accepted merge, or fails the attempt with the verdict's refusal; either fenced by the lease. */
    private void end(OneTripBatch trip, UUID org, Lease lease, MergeAcceptance.Verdict verdict) {
        if (verdict.accepted()) {
            ConflictLeases.storeMerge(trip, org, lease, verdict.mergeJson(), verdict.eventDetailsJson(),
                    lease.attempts(), verdict.calls());
        } else {
            failed(trip, org, lease, FailureReason.INVALID_JSON, verdict.refusal(), verdict.calls());
        }
    }

    /** An errored request is a failed attempt that cost nothing: the provider bills only what it answered. */
    private void errored(BatchRow row, UUID conflict, String error, String owner) {
        String detail = "the request failed in batch " + row.id() + ": " + (error == null ? "error" : error);
        transactions.inOrg(row.orgId(), handle -> {
            Optional<Integer> attempts = BatchRows.takeFromBatch(handle, row.id(), conflict, owner, STORE_LEASE);
            if (attempts.isEmpty()) {
                return null;
            }
            OneTripBatch trip = OneTripBatch.tenant();
            failed(trip, row.orgId(), lease(row, conflict, owner, attempts.get()), FailureReason.SYNTHESIZER, detail,
                    List.of());
            trip.runWithin(handle.getConnection());
            return null;
        });
    }

    /**
     * Ends a failed attempt as the interactive lane would: tried again after the policy's wait, or, once the
     * attempts are used up, the permanent marker with its event.
     */
    private void failed(OneTripBatch trip, UUID org, Lease lease, FailureReason reason, String detail,
                        List<UsageLedger.Entry> calls) {
        int attempt = lease.attempts();
        if (retries.exhausted(attempt)) {
            ConflictLeases.markPermanent(trip, org, lease, reason.label(),
                    GivenUpEvent.details(attempt, retries.maxAttempts(), reason),
                    new ConflictLeases.Ending(attempt, AttemptHistory.PERMANENT_FAILURE, reason.label(), detail,
                            calls));
        } else {
            ConflictLeases.releaseForRetry(trip, org, lease, reason.label(), retries.delayAfter(attempt),
                    new ConflictLeases.Ending(attempt, AttemptHistory.TRANSIENT_FAILURE, reason.label(), detail,
                            calls));
        }
    }

    /** The ledger row of a request's answer: the same on every reading of the results. */
    private static UUID callId(BatchRow row, UUID conflict) {
        return UUID.nameUUIDFromBytes((row.id() + "/" + conflict).getBytes(StandardCharsets.UTF_8));
    }

    private static Lease lease(BatchRow row, UUID conflict, String owner, int attempts) {
        return new Lease(conflict, row.orgId(), owner, attempts, false, false,
                Deadline.in(STORE_LEASE, Ticker.SYSTEM));
    }

    /** The calls as ledger rows: the batch's own call in the batch lane, a second pass's in the interactive. */
    private static List<UsageLedger.Entry> entries(List<ProviderCall> calls, UUID batchCallId) {
        List<UsageLedger.Entry> entries = PaidCalls.entries(calls);
        return IntStream.range(0, calls.size())
                .mapToObj(i -> calls.get(i).id().equals(batchCallId)
                        ? entries.get(i).inLane(UsageLedger.BATCH_LANE) : entries.get(i))
                .toList();
    }

}
