-- Microseconds until the next lease held now expires, by the database clock; null when no lease is held. Runs
-- cross-tenant, in the claim's batch, on policy_conflicts_leases_by_expiry. (When the next pending row waiting
-- out a backoff comes due, the walk of the waiting orgs tells: waiting_orgs.sql.) Written as the first entry
-- rather than as min(), so that the read stops at the first lease still held whatever the planner thinks the
-- index holds: the entries of leases stored since are still in it until a vacuum.
SELECT (SELECT (extract(epoch FROM lease_expires_at - now()) * 1000000)::bigint
        FROM policy_conflicts
        WHERE synthesis_state = 'in_progress' AND lease_expires_at > now()
        ORDER BY lease_expires_at
        LIMIT 1)
