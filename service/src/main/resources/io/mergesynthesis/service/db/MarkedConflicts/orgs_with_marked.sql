-- The orgs that have marked conflicts (of last failure :reason when it is not null), from the partial index of
-- marked rows. Runs cross-tenant.
SELECT DISTINCT org_id FROM policy_conflicts
WHERE synthesis_state = 'max_attempts_exceeded'
  AND (CAST(:reason AS text) IS NULL OR last_failure_reason = :reason)
