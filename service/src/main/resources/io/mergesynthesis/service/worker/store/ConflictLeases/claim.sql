-- Claims up to :limit claimable rows across every org and leases them to :owner for :leaseMicros. Runs
-- cross-tenant. Rows another replica is claiming at the same moment are skipped, not waited for.
--
-- Expired leases first, then pending rows, each oldest first. An expired lease's not_before is its expiry,
-- later than that of every row queued while its holder worked, so one order over both would leave a conflict
-- whose holder died waiting behind the whole backlog queued since. The expired leases are read from their own
-- partial index (policy_conflicts_leases_by_expiry), the pending rows from the claimable one. PostgreSQL reads
-- a WITH query only as far as its reader asks, and LockRows locks a row only as it passes it on: the outer
-- limit takes the expired leases first and reads (and locks) pending rows only for what they left of it. Each
-- read keeps a plain limit, so the planner knows both are small.
--
-- Pending rows of a route whose provider asked this replica to wait are left for later (:heldRoutes, a list
-- like ',anthropic,*,' of provider names, '*' for the configured primary's route of orgs without a model of their
-- own; '' when none): one provider's pause must not stop the claims of another's route. An expired lease is
-- taken whatever its route, to be handed back at once if it must wait.
--
-- An expired lease is "cut by a restart" when it was granted (the claim stamps updated_at) before the database
-- server last started. An inbox write since can only move updated_at later, which errs towards treating the
-- lease as ended by a crash.
WITH expired AS (
    SELECT id, true AS recovered, updated_at < pg_postmaster_start_time() AS cut_by_restart
    FROM policy_conflicts
    WHERE synthesis_state = 'in_progress' AND lease_expires_at <= now()
    ORDER BY lease_expires_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED),
fresh AS (
    SELECT id, false AS recovered, false AS cut_by_restart
    FROM policy_conflicts p
    WHERE synthesis_state = 'pending' AND not_before <= now()
      AND (:heldRoutes = '' OR strpos(:heldRoutes, ',' || coalesce(
              (SELECT split_part(s.model, '/', 1) FROM org_synthesis_settings s WHERE s.org_id = p.org_id),
              '*') || ',') = 0)
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
RETURNING c.id, c.org_id, c.attempts, picked.recovered, picked.cut_by_restart
