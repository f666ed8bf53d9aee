package io.mergesynthesis.service.db;

import io.mergesynthesis.service.db.EventLog.EventType;
import java.util.List;
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

    // One statement for every way of picking the marked rows, so that what a re-queue writes is written once.
    private static final String REQUEUE = SqlFiles.of(MarkedConflicts.class, "requeue");
    private static final String ORGS_WITH_MARKED = SqlFiles.of(MarkedConflicts.class, "orgs_with_marked");
    private static final String ORG_OF = SqlFiles.of(MarkedConflicts.class, "org_of");

    /**
     * Re-queues conflict {@code id} of {@code orgId} if it is marked; empty when it is not (or is not this org's).
     *
     * @param requesterJson a JSON object naming who asked, merged into the event's details
     * @param requestedBy   who asked, in words, for the history's line
     */
    public static Optional<Requeued> requeueOne(Handle handle, UUID orgId, UUID id, String requesterJson,
                                                String requestedBy) {
        return requeue(handle, orgId, id, null, 1, requesterJson, requestedBy).stream().findFirst();
    }

    /**
     * Re-queues at most {@code limit} marked conflicts of {@code orgId}, only those whose last failure reason is
     * {@code failureReason} when it is not null, and returns how many it re-queued. Each call is one bounded
     * statement; callers repeat it until it returns 0.
     */
    public static int requeueBatch(Handle handle, UUID orgId, String failureReason, int limit,
                                   String requesterJson, String requestedBy) {
        return requeue(handle, orgId, null, failureReason, limit, requesterJson, requestedBy).size();
    }

    private static List<Requeued> requeue(Handle handle, UUID orgId, UUID id, String failureReason, int limit,
                                          String requesterJson, String requestedBy) {
        return handle.createQuery(REQUEUE)
                .bind("org", orgId)
                .bind("id", id)
                .bind("reason", failureReason)
                .bind("limit", limit)
                .bind("type", EventType.SYNTHESIS_REQUEUED.dbName())
                .bind("requester", requesterJson)
                .bind("requestedBy", requestedBy)
                .map((rs, ctx) -> new Requeued(rs.getObject("id", UUID.class), rs.getString("last_failure_reason"),
                        rs.getInt("attempts")))
                .list();
    }

    /**
     * The orgs that have marked conflicts (of {@code failureReason} when not null), from the partial index of
     * marked rows. Runs cross-tenant.
     */
    public static List<UUID> orgsWithMarked(Handle handle, String failureReason) {
        return handle.createQuery(ORGS_WITH_MARKED)
                .bind("reason", failureReason)
                .mapTo(UUID.class)
                .list();
    }

    /** The org of conflict {@code id}, for a caller that may act on any org's conflicts. Runs cross-tenant. */
    public static Optional<UUID> orgOf(Handle handle, UUID id) {
        return handle.createQuery(ORG_OF)
                .bind("id", id)
                .mapTo(UUID.class)
                .findOne();
    }
}
