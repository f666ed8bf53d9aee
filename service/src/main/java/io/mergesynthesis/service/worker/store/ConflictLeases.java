package io.mergesynthesis.service.worker.store;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.SqlFiles;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.Ticker;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The worker pool's SQL on {@code policy_conflicts}, all of it. The worker writes only the synthesis columns
 * ({@code synthesis_state}, {@code not_before}, the lease, {@code attempts}, {@code last_failure_reason},
 * {@code failure_marker}, {@code suggested_merge}, {@code merge_check_version}, {@code synthesized_at}); the HTTP API
 * ({@code db.ConflictStore}) writes only the inbox columns. The two never write the same column, so neither
 * can undo the other. The one exception, a re-queue ({@code db.MarkedConflicts}), changes only marked rows,
 * which hold no lease, so it cannot cross any write below.
 *
 * <p>Times come from the database clock ({@code now()}), the one clock every replica shares. While a row is
 * leased, {@code not_before} holds the lease expiry, so "claimable" is always the single range
 * {@code not_before <= now()} over the partial index {@code policy_conflicts_claimable}, and an expired lease
 * is claimable again with no further rule. The claim takes expired leases before pending rows (see
 * {@code claim.sql}).
 *
 * <p>Every write after the claim is fenced on the lease ({@code lease_owner} and {@code attempts}) and on
 * {@code synthesis_state = 'in_progress'}: a worker whose lease was taken over changes nothing. Each write that
 * ends a lease is one statement carrying what must commit with it (the event, the history line, the calls'
 * ledger rows), so that a store or a hand-back stays one statement of its batch (ADR 0016).
 *
 * <p>Each statement is a file of its own in {@code ConflictLeases/} beside this class, read once by
 * {@link SqlFiles}; the ends of a lease without a merge include the one piece they share, the calls' ledger rows
 * ({@code ledger_rows_without_merge.sql}). The methods here bind each statement's parameters and read its rows.
 */
public final class ConflictLeases {

    private ConflictLeases() {
    }

    /** A leased row as the worker reads it back under its org's scope. */
    public record LeasedRow(UUID id, UUID orgId, String dedupKey, String action, String target, String rulesJson,
                            String winnerPolicyId, Instant detectedAt, String synthesisState, String leaseOwner,
                            int attempts, String inboxStatus, boolean budgetReached, String orgModel) {

        /** An admin resolved the conflict already: a merge would answer a question nobody asks any more. */
        public boolean resolved() {
            return "resolved".equals(inboxStatus);
        }

        public boolean heldBy(Lease lease) {
            return "in_progress".equals(synthesisState) && lease.owner().equals(leaseOwner)
                    && lease.attempts() == attempts;
        }
    }

    /** When a released row may be claimed again, and when it was released, both by the database clock. */
    public record Release(Instant notBefore, Instant releasedAt) {
    }

    /**
     * Claims up to {@code limit} claimable rows across every org and leases them to {@code owner}. Rows that
     * another replica is claiming at the same moment are skipped, not waited for. Runs cross-tenant. Expired
     * leases come first; pending rows are shared between the orgs that have some, each org's share weighted by
     * its {@code weight}, oldest first within an org ({@code claim.sql}, ADR 0069).
     *
     * <p>An expired lease is "cut by a restart" when it was granted (the claim stamps {@code updated_at}) before
     * the database server last started. An inbox write since can only move {@code updated_at} later, which errs
     * towards treating the lease as ended by a crash.
     */
    public static List<Lease> claim(Handle handle, String owner, int limit, Duration leaseDuration, Ticker ticker) {
        // Reckoned before the statement is sent, so it cannot fall after the expiry the database writes.
        Deadline heldUntil = Deadline.in(leaseDuration, ticker);
        return handle.createQuery(CLAIM)
                .bindMap(claimParams(owner, limit, leaseDuration, ClaimRoutes.NONE))
                .map((rs, ctx) -> lease(rs, owner, heldUntil))
                .list();
    }

    /** {@link #claim(Handle, String, int, Duration, Ticker)} as one statement of a cross-tenant batch. */
    public static OneTripBatch.Result<List<Lease>> claim(OneTripBatch batch, String owner, int limit,
                                                         Duration leaseDuration, Ticker ticker) {
        return claim(batch, owner, limit, leaseDuration, ticker, ClaimRoutes.NONE);
    }

    /** As above, leaving the pending rows of the held routes for later and taking at most one of each paced route. */
    public static OneTripBatch.Result<List<Lease>> claim(OneTripBatch batch, String owner, int limit,
                                                         Duration leaseDuration, Ticker ticker, ClaimRoutes routes) {
        Deadline heldUntil = Deadline.in(leaseDuration, ticker);
        return batch.query(CLAIM, claimParams(owner, limit, leaseDuration, routes),
                rs -> List.copyOf(tagged(rs, owner, heldUntil).keySet()));
    }

    /**
     * As above ({@link ClaimRoutes}), looking only at the orgs a pool's picture of the fair order puts first
     * ({@link WaitingOrgs}; all of them when {@code picture} is null, or before its first walk); each lease with
     * the tag it was given (null for a recovered one), in the order the claim returned them.
     */
    public static OneTripBatch.Result<Map<Lease, Double>> claim(OneTripBatch batch, String owner, int limit,
                                                                Duration leaseDuration, Ticker ticker,
                                                                ClaimRoutes routes, WaitingOrgs picture) {
        Deadline heldUntil = Deadline.in(leaseDuration, ticker);
        Map<String, Object> params = new HashMap<>(claimParams(owner, limit, leaseDuration, routes));
        if (picture != null) {
            params.put("candidates", picture.candidates(limit, routes.held()));
            params.put("level", picture.level());
        }
        return batch.query(CLAIM, params, rs -> tagged(rs, owner, heldUntil));
    }

    /** The claim's leases, each with the tag it was given (null for a recovered one), in the order returned. */
    private static Map<Lease, Double> tagged(ResultSet rs, String owner, Deadline heldUntil) throws SQLException {
        Map<Lease, Double> leases = new LinkedHashMap<>();
        while (rs.next()) {
            Lease lease = lease(rs, owner, heldUntil);
            double tag = rs.getDouble("claim_tag");
            leases.put(lease, lease.recovered() ? null : tag);
        }
        return leases;
    }

    /**
     * The claim ({@code claim.sql}: expired leases first, then pending rows shared fairly between the orgs that
     * have some); public for the benchmark's plan.
     */
    public static final String CLAIM = SqlFiles.of(ConflictLeases.class, "claim");

    /** The values of {@link #CLAIM}'s parameters: the benchmark shows the claim's plan with them. */
    public static Map<String, Object> claimParams(String owner, int limit, Duration leaseDuration) {
        return claimParams(owner, limit, leaseDuration, ClaimRoutes.NONE);
    }

    private static Map<String, Object> claimParams(String owner, int limit, Duration leaseDuration,
                                                   ClaimRoutes routes) {
        return Map.of("limit", limit, "reach", reach(limit), "owner", owner, "leaseMicros", micros(leaseDuration),
                "heldRoutes", routes.held(), "pacedRoutes", routes.paced(), "candidates", EVERY_WAITING_ORG,
                "level", 0.0);
    }

    /**
     * How many rows beyond its {@code limit} a claim looks at, in orgs and in rows of each: as many claims as
     * this beside it can take the rows it ranks first and still leave it a full batch. Three covers a pool of the
     * default four workers refilling at the same moment from one org's backlog; a claim that still comes back
     * short makes its pool walk the waiting orgs and claim again, which costs more than reading a spare row but
     * is rare, while every spare org is a tag and a head read on every claim.
     */
    static final int SPARE = 3;

    /** The orgs a claim of {@code limit} looks at, and the rows of each: {@code limit} and {@link #SPARE}. */
    static int reach(int limit) {
        return limit + SPARE;
    }

    /** A list of routes ({@link ClaimRoutes}) that names none. */
    public static final String NO_ROUTE_HELD = "";

    /** The {@code candidates} of a claim that walks every waiting org itself. */
    static final String EVERY_WAITING_ORG = "";

    private static Lease lease(ResultSet rs, String owner, Deadline heldUntil) throws SQLException {
        return new Lease(rs.getObject("id", UUID.class), rs.getObject("org_id", UUID.class), owner,
                rs.getInt("attempts"), rs.getBoolean("recovered"), rs.getBoolean("cut_by_restart"), heldUntil);
    }

    /**
     * How long until the next lease held now expires, by the database clock; empty when none is held. With
     * {@link WaitingOrgs#nextPendingDueIn()} (the rows waiting out a backoff) it lets an idle claim loop sleep
     * exactly until there is work instead of polling for it. Runs cross-tenant, as one statement of the claim's
     * batch.
     */
    public static OneTripBatch.Result<Optional<Duration>> nextLeaseEndsIn(OneTripBatch batch) {
        return batch.query(NEXT_LEASE_END, Map.of(), rs -> {
            rs.next();
            long micros = rs.getLong(1);
            return rs.wasNull() ? Optional.empty() : Optional.of(fromMicros(micros));
        });
    }

    private static final String NEXT_LEASE_END = SqlFiles.of(ConflictLeases.class, "next_lease_end");

    private static Duration fromMicros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    /** The row as this transaction's org scope lets it be seen; empty when it cannot be seen at all. */
    public static Optional<LeasedRow> load(Handle handle, UUID conflictId) {
        return handle.createQuery(LOAD).bind("id", conflictId).map((rs, ctx) -> leasedRow(rs)).findOne();
    }

    /** {@link #load(Handle, UUID)} as one statement of a tenant batch, under {@code scopeOrg}. */
    public static OneTripBatch.Result<Optional<LeasedRow>> load(OneTripBatch batch, UUID scopeOrg, UUID conflictId) {
        return batch.query(scopeOrg, LOAD, Map.of("id", conflictId),
                rs -> rs.next() ? Optional.of(leasedRow(rs)) : Optional.empty());
    }

    /**
     * The row, its inbox status, and whether its org's month-to-date spend has reached the org's budget: the
     * sum over the ledger runs only for an org that has a budget.
     */
    private static final String LOAD = SqlFiles.of(ConflictLeases.class, "load");

    private static LeasedRow leasedRow(ResultSet rs) throws SQLException {
        return new LeasedRow(
                rs.getObject("id", UUID.class),
                rs.getObject("org_id", UUID.class),
                rs.getString("dedup_key"),
                rs.getString("action"),
                rs.getString("target"),
                rs.getString("rules"),
                rs.getString("winner_policy_id"),
                rs.getTimestamp("detected_at").toInstant(),
                rs.getString("synthesis_state"),
                rs.getString("lease_owner"),
                rs.getInt("attempts"),
                rs.getString("inbox_status"),
                rs.getBoolean("budget_reached"),
                rs.getString("org_model"));
    }

    /**
     * Stores the merge, ends the lease and appends the "merge synthesized" event, all in one statement: the
     * event is inserted from the rows the fenced update returned, so it exists exactly when the merge was
     * stored. Added to a tenant batch under {@code scopeOrg}; its result is 1 when stored, 0 when the lease is no
     * longer this worker's (then neither is written).
     *
     * <p>A merge reaches the store only once it has passed {@link MergeCheck}, so the row records
     * {@link MergeCheck#VERSION} beside it: one more parameter of the same statement.
     */
    public static OneTripBatch.Result<Integer> storeMerge(OneTripBatch batch, UUID scopeOrg, Lease lease,
                                                          String mergeJson, String eventDetailsJson) {
        return batch.update(scopeOrg, STORE_MERGE, Map.of(
                "merge", mergeJson,
                "checkVersion", MergeCheck.VERSION,
                "id", lease.conflictId(),
                "owner", lease.owner(),
                "attempts", lease.attempts(),
                "org", lease.orgId(),
                "type", EventType.MERGE_SYNTHESIZED.dbName(),
                "details", eventDetailsJson));
    }

    private static final String STORE_MERGE = SqlFiles.of(ConflictLeases.class, "store_merge");

    /**
     * {@link #storeMerge} for a merge that cost provider calls: the same fenced update and event, and the calls'
     * ledger rows in the same statement, so that they commit with the merge. A call whose answer is the merge is
     * recorded {@code stored} when the fence let the merge be written and {@code discarded} when not; the calls
     * are recorded either way, since they were paid for. The result is 1 when the merge was stored, else 0.
     */
    public static OneTripBatch.Result<Integer> storeMerge(OneTripBatch batch, UUID scopeOrg, Lease lease,
                                                          String mergeJson, String eventDetailsJson, int attempt,
                                                          List<UsageLedger.Entry> calls) {
        Map<String, Object> params = new HashMap<>(Map.of(
                "merge", mergeJson,
                "checkVersion", MergeCheck.VERSION,
                "id", lease.conflictId(),
                "owner", lease.owner(),
                "attempts", lease.attempts(),
                "org", lease.orgId(),
                "type", EventType.MERGE_SYNTHESIZED.dbName(),
                "details", eventDetailsJson));
        putCalls(params, lease, attempt, calls);
        return batch.query(scopeOrg, STORE_MERGE_WITH_CALLS, params, rs -> {
            rs.next();
            return rs.getInt(1);
        });
    }

    private static final String STORE_MERGE_WITH_CALLS = SqlFiles.of(ConflictLeases.class,
            "store_merge_with_calls");

    // The ends of a lease without a merge: each fenced on the lease, with its history line and the calls' ledger
    // rows in the same statement.
    private static final String RETRY = SqlFiles.of(ConflictLeases.class, "release_for_retry");
    private static final String MARK = SqlFiles.of(ConflictLeases.class, "mark_permanent");
    private static final String HAND_BACK = SqlFiles.of(ConflictLeases.class, "hand_back");
    private static final String PARK = SqlFiles.of(ConflictLeases.class, "park");

    /** What is written with the end of a lease: the attempt's number, its history line, the calls it paid for. */
    public record Ending(int attempt, String historyOutcome, String historyReason, String detail,
                         List<UsageLedger.Entry> calls) {
    }

    /**
     * Puts the row back to pending, claimable after {@code delay}, recording {@code reason} as its last failure;
     * the release's times when it applied, empty when the lease was lost.
     */
    public static OneTripBatch.Result<Optional<Release>> releaseForRetry(OneTripBatch batch, UUID scopeOrg, Lease lease,
                                                                         String reason, Duration delay, Ending ending) {
        Map<String, Object> params = endingParams(lease, ending);
        params.put("reason", reason);
        params.put("delayMicros", micros(delay));
        return batch.query(scopeOrg, RETRY, params,
                ConflictLeases::release);
    }

    /**
     * Stamps the permanent marker (no claim picks the row again) with its event, whose details are
     * {@code eventDetailsJson}; true when it applied, false when the lease was lost.
     */
    public static OneTripBatch.Result<Boolean> markPermanent(OneTripBatch batch, UUID scopeOrg, Lease lease,
                                                             String reason, String eventDetailsJson, Ending ending) {
        Map<String, Object> params = endingParams(lease, ending);
        params.put("reason", reason);
        params.put("type", EventType.SYNTHESIS_FAILED_PERMANENTLY.dbName());
        params.put("details", eventDetailsJson);
        return batch.query(scopeOrg, MARK, params,
                rs -> release(rs).isPresent());
    }

    /**
     * Hands a lease back: the row pending again after {@code delay}, the claim's attempt taken back (nothing was
     * wrong with the conflict: the pool stopped before the call, the provider asked to wait, the database cut the
     * attempt short), and {@code reason} recorded as the last failure when there is one (otherwise the last is
     * kept). The one statement behind every hand-back; a history line only when {@code ending} names one. True
     * when it applied, false when the lease was no longer this worker's.
     */
    public static OneTripBatch.Result<Boolean> handBack(OneTripBatch batch, UUID scopeOrg, Lease lease, String reason,
                                                        Duration delay, Ending ending) {
        Map<String, Object> params = endingParams(lease, ending);
        params.put("reason", reason);
        params.put("delayMicros", micros(delay));
        return batch.query(scopeOrg, HAND_BACK, params, rs -> release(rs).isPresent());
    }

    /**
     * Ends a lease without counting its attempt and leaves the row in {@code state} ({@code waiting_budget} or
     * {@code not_needed}), outside the claimable index. True when it applied, false when the lease was no longer
     * this worker's.
     */
    public static OneTripBatch.Result<Boolean> park(OneTripBatch batch, UUID scopeOrg, Lease lease, String state,
                                                    Ending ending) {
        Map<String, Object> params = endingParams(lease, ending);
        params.put("state", state);
        return batch.query(scopeOrg, PARK, params,
                rs -> release(rs).isPresent());
    }

    private static Map<String, Object> endingParams(Lease lease, Ending ending) {
        Map<String, Object> params = new HashMap<>();
        params.put("id", lease.conflictId());
        params.put("owner", lease.owner());
        params.put("attempts", lease.attempts());
        params.put("org", lease.orgId());
        params.put("attempt", ending.attempt());
        params.put("outcome", ending.historyOutcome());
        params.put("why", ending.historyReason());
        params.put("detail", AttemptHistory.detail(ending.detail()));
        putCalls(params, lease, ending.attempt(), ending.calls());
        return params;
    }

    /** The ledger rows' own parameters, beside {@code :org}: which conflict and attempt, and the calls. */
    private static void putCalls(Map<String, Object> params, Lease lease, int attempt, List<UsageLedger.Entry> calls) {
        params.put("conflict", lease.conflictId());
        params.put("attempt", attempt);
        params.put("calls", UsageLedger.callsJson(calls));
    }

    private static Optional<Release> release(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return Optional.empty();
        }
        Timestamp notBefore = rs.getTimestamp("not_before");
        return Optional.of(new Release(notBefore == null ? null : notBefore.toInstant(),
                rs.getTimestamp("released_at").toInstant()));
    }

    /**
     * Rows waiting for synthesis, counted up to {@code cap} so that a huge backlog costs no more than
     * {@code cap} index entries to report. Runs cross-tenant.
     */
    public static long countWaiting(Handle handle, int cap) {
        return handle.createQuery(COUNT_WAITING)
                .bind("cap", cap)
                .mapTo(Long.class)
                .one();
    }

    private static final String COUNT_WAITING = SqlFiles.of(ConflictLeases.class, "count_waiting");

    private static long micros(Duration duration) {
        return duration.toNanos() / 1_000;
    }
}
