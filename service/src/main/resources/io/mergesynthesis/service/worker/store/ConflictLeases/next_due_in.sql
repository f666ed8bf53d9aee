-- Microseconds until the next row not claimable yet becomes claimable (a retry's backoff ends, or a lease
-- expires), by the database clock; null when there is no such row. Runs cross-tenant, in the claim's batch, on
-- the same partial index as the claim.
SELECT (extract(epoch FROM min(not_before) - now()) * 1000000)::bigint
FROM policy_conflicts
WHERE synthesis_state IN ('pending', 'in_progress') AND not_before > now()
