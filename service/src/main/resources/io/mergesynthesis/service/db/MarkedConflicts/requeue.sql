-- Re-queues up to :limit marked conflicts of :org: only conflict :id when it is not null, only those whose last
-- failure is :reason when it is not null. Callers of a batch repeat it until it re-queues none.
--
-- Each row is locked, re-queued and given its synthesis_requeued event (:type, with :requester merged into
-- its details) and a requeued line of the attempt history (naming :requestedBy), in one statement, so both
-- exist exactly for the rows that changed. A row another transaction changed meanwhile is checked again once
-- its lock is free and left out if it is no longer marked.
--
-- The rows are found through the partial index of marked rows by org, whichever filter is given: a marked
-- conflict is also found there by its id, among its org's marked rows only.
WITH marked AS (
    SELECT id, last_failure_reason, attempts
    FROM policy_conflicts
    WHERE org_id = :org AND synthesis_state = 'max_attempts_exceeded'
      AND (CAST(:id AS uuid) IS NULL OR id = CAST(:id AS uuid))
      AND (CAST(:reason AS text) IS NULL OR last_failure_reason = CAST(:reason AS text))
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
           format('re-queued by %s after %s attempts (last failure: %s)', CAST(:requestedBy AS text),
                  attempts, coalesce(last_failure_reason, 'none recorded'))
    FROM requeued)
SELECT id, last_failure_reason, attempts FROM requeued
