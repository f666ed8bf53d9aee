-- Ends the last attempt with the permanent marker (no claim picks the row again, outside the claimable index),
-- :reason as its last failure, and the "synthesis failed permanently" event (:type, :details) when it applied.
--
-- Like every end of a lease without a merge, in one statement: the update, fenced on the lease (:owner and
-- :attempts: only a row in progress has an owner, schema 32, so the fence needs no state and the row is found
-- by its primary key); a line of the attempt history when it applied and :outcome names one (its
-- not_before taken from the row as the update left it, so the two agree); and the ledger rows of the calls
-- paid for, written either way. The row returned (none when the lease was no longer this worker's) gives when
-- the conflict may be claimed again and when it was released.
WITH ended AS (
    UPDATE policy_conflicts
    SET synthesis_state = 'max_attempts_exceeded',
        failure_marker = 'synthesis_max_attempts_exceeded',
        last_failure_reason = :reason,
        lease_owner = NULL,
        lease_expires_at = NULL,
        updated_at = now()
    WHERE id = :id AND lease_owner = :owner AND attempts = :attempts
    RETURNING id, not_before, now() AS released_at,
              CASE WHEN synthesis_state = 'pending' THEN not_before END AS waits_until),
history AS (
    INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason, detail, not_before)
    SELECT :org, id, :attempt, :outcome, :why, :detail, waits_until FROM ended
    WHERE CAST(:outcome AS text) IS NOT NULL),
event AS (
    INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
    SELECT :org, id, :type, CAST(:details AS jsonb) FROM ended),
ledger AS (
    \ir ledger_rows_without_merge.sql
)
SELECT not_before, released_at FROM ended
