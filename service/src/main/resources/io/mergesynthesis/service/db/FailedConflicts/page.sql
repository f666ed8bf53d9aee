-- Marked conflicts across orgs, newest mark first, after the keyset (:afterUpdatedAt, :afterConflict) (NULL for
-- the first page); only :reason's when it is given, only :org's when it is given. :limit rows.
SELECT id, org_id, target, coalesce(last_failure_reason, 'unknown') AS reason, attempts, updated_at
  FROM policy_conflicts
 WHERE synthesis_state = 'max_attempts_exceeded'
   AND (CAST(:reason AS text) IS NULL OR last_failure_reason = :reason)
   AND (CAST(:org AS uuid) IS NULL OR org_id = :org)
   AND (CAST(:afterUpdatedAt AS timestamptz) IS NULL
        OR (updated_at, id) < (CAST(:afterUpdatedAt AS timestamptz), CAST(:afterConflict AS uuid)))
 ORDER BY updated_at DESC, id DESC
 LIMIT :limit
