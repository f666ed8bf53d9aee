package io.mergesynthesis.service.db;

import io.mergesynthesis.service.db.EventLog.EventType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The SQL that gives marked conflicts ({@code synthesis_state = 'max_attempts_exceeded'}) another chance, all of
 * it. This is the one write to the synthesis columns from outside the worker pool, and it cannot cross a worker's
 * write: a marked row holds no lease, and every worker write is fenced on {@code synthesis_state = 'in_progress'}.
 *
 * <p>A re-queue puts the row back to pending with its attempts at zero, the marker and the last failure reason
 * cleared and claimable at once, and appends a {@code synthesis_requeued} event and a {@code requeued} line of the
 * attempt history per row in the same statement, so both exist exactly for the rows that changed. The history's
 * earlier lines are left as they are: read in order, it tells the old failures, who re-queued and when, then the
 * new attempts.
 */
public final class MarkedConflicts {

    private MarkedConflicts() {
    }

    /** One re-queued conflict and what it was before. */
    public record Requeued(UUID id, String previousFailureReason, int previousAttempts) {
    }

    /**
     * Picks marked rows of {@code :org} (the {@code %s} narrows them further), locks them, re-queues them and writes
     * their events. A row another transaction changed meanwhile is checked again once its lock is free and left
     * out if it is no longer marked. The history line's {@code format} is written with {@code %%s}, as the whole
     * statement is itself a Java format.
     */
    private static final String REQUEUE = """
            WITH marked AS (
                SELECT id, last_failure_reason, attempts
                FROM policy_conflicts
                WHERE org_id = :org AND synthesis_state = 'max_attempts_exceeded' %s
                LIMIT :limit
                FOR UPDATE),
            requeued AS (
                UPDATE policy_conflicts c
                SET synthesis_state = 'pending',
                    attempts = 0,
                    failure_marker = NULL,
                    last_failure_reason = NULL,
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    not_before = now(),
                    updated_at = now()
                FROM marked
                WHERE c.id = marked.id AND c.synthesis_state = 'max_attempts_exceeded'
                RETURNING c.id, marked.last_failure_reason, marked.attempts),
            events AS (
                INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                SELECT :org, id, :type, CAST(:requester AS jsonb)
                           || jsonb_build_object('previous_failure_reason', last_failure_reason,
                                                 'previous_attempts', attempts)
                FROM requeued),
            history AS (
                INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason, detail)
                SELECT :org, id, 0, 'requeued', 'requeued',
                       format('re-queued by %%s after %%s attempts (last failure: %%s)', CAST(:requestedBy AS text),
                              attempts, coalesce(last_failure_reason, 'none recorded'))
                FROM requeued)
            SELECT id, last_failure_reason, attempts FROM requeued""";

    private static final String ONE = REQUEUE.formatted("AND id = :id");
    private static final String ANY_REASON = REQUEUE.formatted("");
    private static final String OF_REASON = REQUEUE.formatted("AND last_failure_reason = :reason");

    /**
     * Re-queues conflict {@code id} of {@code orgId} if it is marked; empty when it is not (or is not this org's).
     *
     * @param requesterJson a JSON object naming who asked, merged into the event's details
     * @param requestedBy   who asked, in words, for the history's line
     */
    public static Optional<Requeued> requeueOne(Handle handle, UUID orgId, UUID id, String requesterJson,
                                                String requestedBy) {
        return handle.createQuery(ONE)
                .bindMap(Map.of("org", orgId, "id", id, "limit", 1, "type", EventType.SYNTHESIS_REQUEUED.dbName(),
                        "requester", requesterJson, "requestedBy", requestedBy))
                .map((rs, ctx) -> new Requeued(rs.getObject("id", UUID.class), rs.getString("last_failure_reason"),
                        rs.getInt("attempts")))
                .findOne();
    }

    /**
     * Re-queues at most {@code limit} marked conflicts of {@code orgId}, only those whose last failure reason is
     * {@code failureReason} when it is not null, and returns how many it re-queued. Each call is one bounded
     * statement; callers repeat it until it returns 0.
     */
    public static int requeueBatch(Handle handle, UUID orgId, String failureReason, int limit,
                                   String requesterJson, String requestedBy) {
        var query = handle.createQuery(failureReason == null ? ANY_REASON : OF_REASON)
                .bind("org", orgId)
                .bind("limit", limit)
                .bind("type", EventType.SYNTHESIS_REQUEUED.dbName())
                .bind("requester", requesterJson)
                .bind("requestedBy", requestedBy);
        if (failureReason != null) {
            query.bind("reason", failureReason);
        }
        return query.mapTo(UUID.class).list().size();
    }

    /**
     * The orgs that have marked conflicts (of {@code failureReason} when not null), from the partial index of
     * marked rows. Runs cross-tenant.
     */
    public static List<UUID> orgsWithMarked(Handle handle, String failureReason) {
        return handle.createQuery("""
                        SELECT DISTINCT org_id FROM policy_conflicts
                        WHERE synthesis_state = 'max_attempts_exceeded'
                          AND (CAST(:reason AS text) IS NULL OR last_failure_reason = :reason)""")
                .bind("reason", failureReason)
                .mapTo(UUID.class)
                .list();
    }

    /** The org of conflict {@code id}, for a caller that may act on any org's conflicts. Runs cross-tenant. */
    public static Optional<UUID> orgOf(Handle handle, UUID id) {
        return handle.createQuery("SELECT org_id FROM policy_conflicts WHERE id = :id")
                .bind("id", id)
                .mapTo(UUID.class)
                .findOne();
    }
}
