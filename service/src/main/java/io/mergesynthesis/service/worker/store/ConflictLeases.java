package io.mergesynthesis.service.worker.store;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.Ticker;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
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
 * {@link #CLAIM}).
 *
 * <p>Every write after the claim is fenced on the lease ({@code lease_owner} and {@code attempts}) and on
 * {@code synthesis_state = 'in_progress'}: a worker whose lease was taken over changes nothing.
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
     * another replica is claiming at the same moment are skipped, not waited for. Runs cross-tenant.
     *
     * <p>An expired lease is "cut by a restart" when it was granted (the claim stamps {@code updated_at}) before
     * the database server last started. An inbox write since can only move {@code updated_at} later, which errs
     * towards treating the lease as ended by a crash.
     */
    public static List<Lease> claim(Handle handle, String owner, int limit, Duration leaseDuration, Ticker ticker) {
        // Reckoned before the statement is sent, so it cannot fall after the expiry the database writes.
        Deadline heldUntil = Deadline.in(leaseDuration, ticker);
        return handle.createQuery(CLAIM)
                .bindMap(claimParams(owner, limit, leaseDuration))
                .map((rs, ctx) -> lease(rs, owner, heldUntil))
                .list();
    }

    /** {@link #claim(Handle, String, int, Duration, Ticker)} as one statement of a cross-tenant batch. */
    public static OneTripBatch.Result<List<Lease>> claim(OneTripBatch batch, String owner, int limit,
                                                         Duration leaseDuration, Ticker ticker) {
        Deadline heldUntil = Deadline.in(leaseDuration, ticker);
        return batch.query(CLAIM, claimParams(owner, limit, leaseDuration), rs -> {
            List<Lease> leases = new ArrayList<>();
            while (rs.next()) {
                leases.add(lease(rs, owner, heldUntil));
            }
            return leases;
        });
    }

    /**
     * Expired leases first, then pending rows, each oldest first. An expired lease's {@code not_before} is its
     * expiry, later than that of every row queued while its holder worked, so one order over both would leave a
     * conflict whose holder died waiting behind the whole backlog queued since. The expired leases are read from
     * their own partial index ({@code policy_conflicts_leases_by_expiry}), the pending rows from the claimable
     * one. PostgreSQL reads a WITH query only as far as its reader asks, and {@code LockRows} locks a row only as
     * it passes it on: the outer limit takes the expired leases first and reads (and locks) pending rows only
     * for what they left of it. Each read keeps a plain limit, so the planner knows both are small.
     */
    public static final String CLAIM = """
            WITH expired AS (
                SELECT id, true AS recovered, updated_at < pg_postmaster_start_time() AS cut_by_restart
                FROM policy_conflicts
                WHERE synthesis_state = 'in_progress' AND lease_expires_at <= now()
                ORDER BY lease_expires_at
                LIMIT :limit
                FOR UPDATE SKIP LOCKED),
            fresh AS (
                SELECT id, false AS recovered, false AS cut_by_restart
                FROM policy_conflicts
                WHERE synthesis_state = 'pending' AND not_before <= now()
                ORDER BY not_before
                LIMIT :limit
                FOR UPDATE SKIP LOCKED),
            picked AS (
                SELECT * FROM expired UNION ALL SELECT * FROM fresh
                LIMIT :limit)
            UPDATE policy_conflicts c
            SET synthesis_state = 'in_progress',
                lease_owner = :owner,
                lease_expires_at = now() + :leaseMicros * interval '1 microsecond',
                not_before = now() + :leaseMicros * interval '1 microsecond',
                attempts = c.attempts + 1,
                updated_at = now()
            FROM picked
            WHERE c.id = picked.id
            RETURNING c.id, c.org_id, c.attempts, picked.recovered, picked.cut_by_restart""";

    /** The values of {@link #CLAIM}'s parameters: the benchmark shows the claim's plan with them. */
    public static Map<String, Object> claimParams(String owner, int limit, Duration leaseDuration) {
        return Map.of("limit", limit, "owner", owner, "leaseMicros", micros(leaseDuration));
    }

    private static Lease lease(ResultSet rs, String owner, Deadline heldUntil) throws SQLException {
        return new Lease(rs.getObject("id", UUID.class), rs.getObject("org_id", UUID.class), owner,
                rs.getInt("attempts"), rs.getBoolean("recovered"), rs.getBoolean("cut_by_restart"), heldUntil);
    }

    /**
     * How long until the next row not claimable yet becomes claimable (a retry's backoff ends, or a lease
     * expires), by the database clock; empty when no such row exists. Lets an idle claim loop sleep exactly
     * until there is work instead of polling for it. Runs cross-tenant, on the same partial index as the claim,
     * as one statement of the claim's batch.
     */
    public static OneTripBatch.Result<Optional<Duration>> nextDueIn(OneTripBatch batch) {
        return batch.query(NEXT_DUE_IN, Map.of(), rs -> {
            rs.next();
            long micros = rs.getLong(1);
            return rs.wasNull() ? Optional.empty() : Optional.of(fromMicros(micros));
        });
    }

    private static final String NEXT_DUE_IN = """
            SELECT (extract(epoch FROM min(not_before) - now()) * 1000000)::bigint
            FROM policy_conflicts
            WHERE synthesis_state IN ('pending', 'in_progress') AND not_before > now()""";

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
     * sum over the ledger runs only for an org that has a budget, on an index that covers it.
     */
    private static final String LOAD = """
            SELECT c.id, c.org_id, c.dedup_key, c.action, c.target, c.rules::text AS rules, c.winner_policy_id,
                   c.detected_at, c.synthesis_state, c.lease_owner, c.attempts, c.inbox_status,
                   s.model AS org_model,
                   CASE WHEN s.monthly_budget_usd IS NULL THEN false
                        ELSE s.monthly_budget_usd <= %s END AS budget_reached
            FROM policy_conflicts c LEFT JOIN org_synthesis_settings s ON s.org_id = c.org_id
            WHERE c.id = :id""".formatted(UsageLedger.MONTH_SPEND_OF.formatted("c.org_id"));

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

    /** The fenced update that stores a merge and ends the lease; its rows are the conflicts it stored. */
    private static final String STORED = """
            WITH stored AS (
                UPDATE policy_conflicts
                SET suggested_merge = CAST(:merge AS jsonb),
                    merge_check_version = :checkVersion,
                    synthesis_state = 'done',
                    synthesized_at = now(),
                    last_failure_reason = NULL,
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    not_before = now(),
                    updated_at = now()
                WHERE id = :id AND lease_owner = :owner AND attempts = :attempts
                  AND synthesis_state = 'in_progress'
                RETURNING id)""";

    private static final String STORE_MERGE = STORED + "\n" + EventLog.INSERT_FROM_ROWS + " stored";

    /**
     * {@link #storeMerge} for a merge that cost provider calls: the same fenced update and event, and the calls'
     * ledger rows in the same statement, so that they commit with the merge. A call whose answer is the merge is
     * recorded {@code stored} when the fence let the merge be written and {@code discarded} when not; the calls
     * are recorded either way, since they were paid for. The result is 1 when the merge was stored, else 0.
     */
    public static OneTripBatch.Result<Integer> storeMerge(OneTripBatch batch, UUID scopeOrg, Lease lease,
                                                          String mergeJson, String eventDetailsJson, int attempt,
                                                          List<UsageLedger.Entry> calls) {
        Map<String, Object> params = new HashMap<>(UsageLedger.params(lease.orgId(), lease.conflictId(), attempt,
                calls));
        params.putAll(Map.of(
                "merge", mergeJson,
                "checkVersion", MergeCheck.VERSION,
                "id", lease.conflictId(),
                "owner", lease.owner(),
                "attempts", lease.attempts(),
                "type", EventType.MERGE_SYNTHESIZED.dbName(),
                "details", eventDetailsJson));
        return batch.query(scopeOrg, STORE_MERGE_WITH_CALLS, params, rs -> {
            rs.next();
            return rs.getInt(1);
        });
    }

    private static final String STORE_MERGE_WITH_CALLS = STORED + """
            ,
            event AS (%s stored),
            ledger AS (%s)
            SELECT count(*) FROM stored""".formatted(EventLog.INSERT_FROM_ROWS,
            UsageLedger.insert("EXISTS (SELECT 1 FROM stored)"));

    /**
     * The fenced end of a lease without a merge, as one statement of a tenant batch: the update {@code set}; a
     * history line when it applied and {@code :outcome} names one; the "synthesis failed permanently" event when it
     * applied and {@code event} is set; and the ledger rows of the calls paid for ({@code :calls}, possibly none),
     * written either way. The history line takes its {@code not_before} from the row as the update left it, so
     * the two agree.
     */
    private static String endLease(String set, boolean event) {
        return """
                WITH ended AS (
                    UPDATE policy_conflicts
                    SET %s,
                        lease_owner = NULL,
                        lease_expires_at = NULL,
                        updated_at = now()
                    WHERE id = :id AND lease_owner = :owner AND attempts = :attempts
                      AND synthesis_state = 'in_progress'
                    RETURNING id, not_before, now() AS released_at,
                              CASE WHEN synthesis_state = 'pending' THEN not_before END AS waits_until),
                history AS (%s ended WHERE CAST(:outcome AS text) IS NOT NULL),%s
                ledger AS (%s)
                SELECT not_before, released_at FROM ended""".formatted(set, AttemptHistory.INSERT_FROM_ROWS,
                event ? "\nevent AS (" + EventLog.INSERT_FROM_ROWS + " ended)," : "", UsageLedger.insert("false"));
    }

    private static final String RETRY_SET = """
            synthesis_state = 'pending',
                        last_failure_reason = :reason,
                        not_before = now() + :delayMicros * interval '1 microsecond'""";

    private static final String MARK_SET = """
            synthesis_state = 'max_attempts_exceeded',
                        failure_marker = 'synthesis_max_attempts_exceeded',
                        last_failure_reason = :reason""";

    private static final String HAND_BACK_SET = """
            synthesis_state = 'pending',
                        attempts = attempts - 1,
                        last_failure_reason = coalesce(CAST(:reason AS text), last_failure_reason),
                        not_before = now() + :delayMicros * interval '1 microsecond'""";

    private static final String PARK_SET = """
            synthesis_state = :state,
                        attempts = attempts - 1,
                        not_before = now()""";

    private static final String RETRY = endLease(RETRY_SET, false);
    private static final String MARK = endLease(MARK_SET, true);
    private static final String HAND_BACK = endLease(HAND_BACK_SET, false);
    private static final String PARK = endLease(PARK_SET, false);

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
        params.putAll(UsageLedger.params(lease.orgId(), lease.conflictId(), ending.attempt(), ending.calls()));
        return params;
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
        return handle.createQuery("""
                        SELECT count(*) FROM (
                            SELECT 1 FROM policy_conflicts
                            WHERE synthesis_state IN ('pending', 'in_progress')
                            LIMIT :cap) waiting""")
                .bind("cap", cap)
                .mapTo(Long.class)
                .one();
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1_000;
    }
}
