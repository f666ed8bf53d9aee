-- Stores the merge, ends the lease and appends the "merge synthesized" event, in one statement: the event is
-- inserted from the rows the fenced update returned, so it exists exactly when the merge was stored. A lease
-- taken over since (another :owner or :attempts, or no longer in progress) changes nothing and writes no event.
-- The fence names no state: only a row in progress has an owner (schema 32). With the state in it, the index of
-- leases by expiry, whose predicate it matches, was read whole with a filter on the id wherever the statistics
-- date from a moment with few leases held, which is every drain: a read of every lease in flight per store.
-- Without it only the primary key finds the row.
-- A merge reaches the store only once it passed the merge check, whose version goes in :checkVersion.
-- The move from in progress to done is counted here (schema 14's count row, written as the trigger would), as the
-- trigger leaves that one move to the store statements: a row written by the statement costs the drain about
-- half what the trigger's call does.
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
    RETURNING id, inbox_status),
counted AS (
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, out_state, out_status, n)
    SELECT :org, 'done', inbox_status, 'pending', inbox_status, 1 FROM stored)
INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
SELECT :org, id, :type, CAST(:details AS jsonb) FROM stored
