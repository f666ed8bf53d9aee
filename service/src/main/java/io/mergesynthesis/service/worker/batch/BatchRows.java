package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.service.core.SynthesisSettings;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.SqlFiles;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/** Every statement of the batch lane's rows: the batches, and the conflicts going into and out of them. */
final class BatchRows {

    private final ScopedTransactions transactions;

    BatchRows(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** A conflict as it went into a batch: its attempt is counted already. */
    record Batched(UUID conflictId, int attempts) {
    }

    /** @param autoAbove an org in lane auto has batch work while more than this many of its conflicts wait */
    List<UUID> orgsWithBatchWork(int limit, int autoAbove) {
        return transactions.crossTenant(handle -> handle.createQuery(ORGS_WITH_BATCH_WORK)
                .bind("limit", limit).bind("autoAbove", autoAbove).mapTo(UUID.class).list());
    }

    /** The org's settings: its own model, its lane. */
    SynthesisSettings orgSettings(UUID org) {
        return transactions.inOrg(org, handle -> OrgSynthesisSettings.of(handle, org));
    }

    /** How many of the org's conflicts wait, by the kept counts. */
    static long waiting(Handle handle, UUID org) {
        return handle.createQuery(ORG_WAITING).bind("org", org).mapTo(Long.class).one();
    }

    /** The conflicts as the synthesizer would see them; a conflict gone from view is left out. */
    static List<LeasedRow> load(Handle handle, List<UUID> conflicts) {
        return conflicts.stream().map(id -> ConflictLeases.load(handle, id)).flatMap(Optional::stream).toList();
    }

    /**
     * Runs {@code work} in one transaction of {@code org} that holds the org's budget first: a batch is opened,
     * sized and reserved in it, so that two replicas never size their batches to the same room.
     */
    <R> R underOrgBudget(UUID org, HandleCallback<R, RuntimeException> work) {
        return transactions.inOrg(org, handle -> {
            handle.createQuery(HOLD_ORG_BUDGET).bind("org", org).mapTo(UUID.class).findOne();
            return work.withHandle(handle);
        });
    }

    /**
     * Writes batch {@code id}'s row and marks its conflicts batched, in one statement; none when nothing is due.
     *
     * @param wholeOrg every waiting conflict of the org may go, not only those reported with lane batch
     */
    static List<Batched> open(Handle handle, UUID id, UUID org, String provider, String model, int limit,
                              boolean wholeOrg) {
        return handle.createQuery(OPEN_BATCH)
                .bind("id", id).bind("org", org).bind("provider", provider).bind("model", model)
                .bind("limit", limit).bind("wholeOrg", wholeOrg)
                .map((rs, ctx) -> new Batched(rs.getObject("id", UUID.class), rs.getInt("attempts")))
                .list();
    }

    /**
     * What the org may still spend this month on new batches (its budget, less its spend and its batches'
     * reservations); empty when it has no budget.
     */
    static Optional<BigDecimal> budgetRoom(Handle handle, UUID org) {
        return handle.createQuery(BUDGET_ROOM).bind("org", org).mapTo(BigDecimal.class).findOne();
    }

    /** Sets the batch's requests and reserves their expected cost against its org's budget, before the create. */
    static void reserve(Handle handle, UUID id, int requests, BigDecimal reservedUsd, long inputTokens) {
        handle.createUpdate(RESERVE)
                .bind("id", id).bind("requests", requests).bind("reservedUsd", reservedUsd)
                .bind("inputTokens", inputTokens).execute();
    }

    /** True when the batch took the id; false when it had one already. */
    boolean recordSent(UUID org, UUID id, String providerBatchId, Duration firstPollIn) {
        return transactions.inOrg(org, handle -> handle.createUpdate(RECORD_SENT)
                .bind("id", id).bind("providerBatchId", providerBatchId)
                .bind("delayMicros", micros(firstPollIn)).execute()) == 1;
    }

    /** @param grace how long a batch's sender may still be sending its create; its poller leaves it alone */
    Optional<BatchRow> takePoll(String owner, Duration hold, Duration grace) {
        return transactions.crossTenant(handle -> handle.createQuery(TAKE_POLL)
                .bind("owner", owner).bind("leaseMicros", micros(hold)).bind("graceMicros", micros(grace))
                .map((rs, ctx) -> new BatchRow(rs.getObject("id", UUID.class), rs.getObject("org_id", UUID.class),
                        rs.getString("provider"), rs.getString("model"), rs.getString("provider_batch_id"),
                        rs.getString("state"), instant(rs.getTimestamp("created_at")),
                        instant(rs.getTimestamp("ended_at")), rs.getBoolean("cancel_due")))
                .findOne());
    }

    /** True while the hold is still {@code owner}'s, now renewed for {@code hold}. */
    boolean renewPoll(BatchRow batch, String owner, Duration hold) {
        return transactions.inOrg(batch.orgId(), handle -> handle.createUpdate(RENEW_POLL)
                .bind("id", batch.id()).bind("owner", owner).bind("leaseMicros", micros(hold)).execute()) == 1;
    }

    void pollLater(BatchRow batch, String owner, Duration in) {
        transactions.inOrg(batch.orgId(), handle -> handle.createUpdate(POLL_LATER)
                .bind("id", batch.id()).bind("owner", owner).bind("delayMicros", micros(in)).execute());
    }

    /** When the batch ended, as first seen; empty when the hold was lost. */
    Optional<Instant> markEnded(BatchRow batch, String owner) {
        return transactions.inOrg(batch.orgId(), handle -> handle.createQuery(MARK_ENDED)
                .bind("id", batch.id()).bind("owner", owner)
                .map((rs, ctx) -> instant(rs.getTimestamp("ended_at"))).findOne());
    }

    /** @param costUsd what the batch's answers cost; null when the provider never made the batch */
    void markDone(BatchRow batch, String owner, BigDecimal costUsd) {
        transactions.inOrg(batch.orgId(), handle -> handle.createUpdate(MARK_DONE)
                .bind("id", batch.id()).bind("owner", owner).bind("costUsd", costUsd).execute());
    }

    /**
     * A create the provider refused outright: the batch's conflicts wait again with their attempt taken back, and
     * its row is done at no cost. How many conflicts wait again.
     */
    int closeRefused(UUID org, UUID batch) {
        return transactions.inOrg(org, handle -> {
            int back = backToPending(handle, batch, null);
            handle.createUpdate(MARK_REFUSED).bind("id", batch).execute();
            return back;
        });
    }

    /** The provider was asked to cancel the batch. */
    void markCancelSent(BatchRow batch, String owner) {
        transactions.inOrg(batch.orgId(), handle -> handle.createUpdate(MARK_CANCEL_SENT)
                .bind("id", batch.id()).bind("owner", owner).execute());
    }

    /** The conflict's attempt, leased to {@code owner}; empty when it is no longer in the batch. */
    static Optional<Integer> takeFromBatch(Handle handle, UUID batch, UUID conflict, String owner, Duration lease) {
        return handle.createQuery(TAKE_FROM_BATCH)
                .bind("id", conflict).bind("batch", batch).bind("owner", owner).bind("leaseMicros", micros(lease))
                .map((rs, ctx) -> rs.getInt("attempts")).findOne();
    }

    /** Puts the batch's conflict {@code conflict} (every one still in it, when null) back to pending. */
    int backToPending(UUID org, UUID batch, UUID conflict) {
        return transactions.inOrg(org, handle -> backToPending(handle, batch, conflict));
    }

    static int backToPending(Handle handle, UUID batch, UUID conflict) {
        Map<String, Object> params = new HashMap<>();
        params.put("batch", batch);
        params.put("id", conflict);
        return handle.createUpdate(BACK_TO_PENDING).bindMap(params).execute();
    }

    /** Batches not yet done of one provider's model, and the input tokens they hold in its queue. */
    record InFlight(String provider, String model, long batches, long inputTokens) {
    }

    /** The batches not yet done, by provider and model. */
    List<InFlight> inFlight() {
        return transactions.crossTenant(handle -> handle.createQuery(IN_FLIGHT)
                .map((rs, ctx) -> new InFlight(rs.getString("provider"), rs.getString("model"),
                        rs.getLong("batches"), rs.getLong("input_tokens")))
                .list());
    }

    /** The requests the providers have not answered yet, by provider. */
    Map<String, Long> requestsWaiting() {
        return transactions.crossTenant(handle -> handle.createQuery(REQUESTS_WAITING)
                .map((rs, ctx) -> Map.entry(rs.getString("provider"), rs.getLong("requests")))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    private static final String ORGS_WITH_BATCH_WORK = SqlFiles.of(BatchRows.class, "orgs_with_batch_work");
    private static final String OPEN_BATCH = SqlFiles.of(BatchRows.class, "open_batch");
    private static final String RECORD_SENT = SqlFiles.of(BatchRows.class, "record_sent");
    private static final String TAKE_POLL = SqlFiles.of(BatchRows.class, "take_poll");
    private static final String POLL_LATER = SqlFiles.of(BatchRows.class, "poll_later");
    private static final String MARK_ENDED = SqlFiles.of(BatchRows.class, "mark_ended");
    private static final String MARK_DONE = SqlFiles.of(BatchRows.class, "mark_done");
    private static final String TAKE_FROM_BATCH = SqlFiles.of(BatchRows.class, "take_from_batch");
    private static final String REQUESTS_WAITING = SqlFiles.of(BatchRows.class, "requests_waiting");
    private static final String BACK_TO_PENDING = SqlFiles.of(BatchRows.class, "back_to_pending");
    private static final String BUDGET_ROOM = SqlFiles.of(BatchRows.class, "budget_room");
    private static final String RESERVE = SqlFiles.of(BatchRows.class, "reserve");
    private static final String RENEW_POLL = SqlFiles.of(BatchRows.class, "renew_poll");
    private static final String IN_FLIGHT = SqlFiles.of(BatchRows.class, "in_flight");
    private static final String MARK_REFUSED = SqlFiles.of(BatchRows.class, "mark_refused");
    private static final String ORG_WAITING = SqlFiles.of(BatchRows.class, "org_waiting");
    private static final String MARK_CANCEL_SENT = SqlFiles.of(BatchRows.class, "mark_cancel_sent");
    private static final String HOLD_ORG_BUDGET = SqlFiles.of(BatchRows.class, "hold_org_budget");
}
