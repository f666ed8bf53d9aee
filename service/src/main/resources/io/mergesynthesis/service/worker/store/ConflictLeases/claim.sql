-- Claims up to :limit claimable rows and leases them to :owner for :leaseMicros. Runs cross-tenant. Rows another
-- replica is claiming at the same moment are skipped, not waited for.
--
-- Expired leases first, oldest expiry first, whatever their org; then pending rows, shared fairly between the
-- orgs that have some (schema 26, ADR 0069). An expired lease's not_before is its expiry, later than that of every
-- row queued while its holder worked, so one order over both would leave a conflict whose holder died waiting
-- behind the whole backlog queued since. The expired leases are read from their own partial index
-- (policy_conflicts_leases_by_expiry). PostgreSQL reads a WITH query only as far as its reader asks, and LockRows
-- locks a row only as it passes it on: the outer limit takes the expired leases first, and the pending rows fill
-- what they left.
--
-- The fair share, start-time fair queueing over the orgs: each waiting org has a turn (org_claim_turns) whose pass
-- counts what it was given, 1 / weight per conflict. The claim keeps the 2 * :limit waiting orgs of lowest pass
-- (the waiting turns read whole through their partial index and sorted: one short row per org with work, its pass
-- in no index since every claim rewrites it), twice the batch so that orgs whose rows are all in a backoff or taken by a claim running beside this
-- one do not leave it short; from each, up to :limit of its oldest claimable rows through
-- policy_conflicts_pending_by_org; and locks, FOR UPDATE SKIP LOCKED, the :limit that start lowest, the nth row of
-- an org starting at its pass plus (n - 1) / weight. So a batch is spread over the orgs by weight rather than taken
-- from one, and an org behind the others catches up first. The turns of the orgs served move on by what each got,
-- updated in org order so that two claims take the rows in one order; a claim of the same org beside this one
-- waits for this commit there.
--
-- Pending rows of a route whose provider asked this replica to wait are left for later (:heldRoutes, a list
-- like ',anthropic,*,' of provider names, '*' for the configured primary's route of orgs without a model of their
-- own; '' when none): one provider's pause must not stop the claims of another's route. Such an org is passed
-- over in the walk, and its pass stays where it was. An expired lease is taken whatever its route, to be handed
-- back at once if it must wait, and is not counted in its org's pass: it was counted when first claimed.
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
turns AS (
    SELECT t.org_id, t.pass, coalesce(s.weight, 1) AS weight
    FROM org_claim_turns t LEFT JOIN org_synthesis_settings s ON s.org_id = t.org_id
    WHERE t.waiting
      AND (:heldRoutes = '' OR strpos(:heldRoutes, ',' || coalesce(split_part(s.model, '/', 1), '*') || ',') = 0)
    ORDER BY t.pass, t.org_id
    LIMIT 2 * :limit),
offered AS (
    SELECT t.org_id, t.pass, t.weight, o.id, o.not_before
    FROM turns t CROSS JOIN LATERAL (
        SELECT p.id, p.not_before
        FROM policy_conflicts p
        WHERE p.org_id = t.org_id AND p.synthesis_state = 'pending' AND p.not_before <= now()
        ORDER BY p.not_before
        LIMIT :limit) o),
ranked AS (
    SELECT id, not_before,
           pass + (row_number() OVER (PARTITION BY org_id ORDER BY not_before, id) - 1)::float8 / weight AS starts
    FROM offered
    ORDER BY starts, not_before),
fresh AS (
    SELECT p.id, false AS recovered, false AS cut_by_restart
    FROM ranked JOIN policy_conflicts p ON p.id = ranked.id
    WHERE p.synthesis_state = 'pending' AND p.not_before <= now()
    ORDER BY ranked.starts, ranked.not_before
    LIMIT :limit
    FOR UPDATE OF p SKIP LOCKED),
picked AS (
    SELECT * FROM expired UNION ALL SELECT * FROM fresh
    LIMIT :limit),
claimed AS (
    UPDATE policy_conflicts c
    SET synthesis_state = 'in_progress',
        lease_owner = :owner,
        lease_expires_at = now() + :leaseMicros * interval '1 microsecond',
        not_before = now() + :leaseMicros * interval '1 microsecond',
        attempts = c.attempts + 1,
        updated_at = now()
    FROM picked
    WHERE c.id = picked.id
    RETURNING c.id, c.org_id, c.attempts, picked.recovered, picked.cut_by_restart),
served AS (
    SELECT c.org_id, count(*) / min(sh.weight)::float8 AS given
    FROM claimed c JOIN turns sh ON sh.org_id = c.org_id
    WHERE NOT c.recovered
    GROUP BY c.org_id),
turns_in_order AS (
    SELECT t.org_id, s.given
    FROM org_claim_turns t JOIN served s ON s.org_id = t.org_id
    ORDER BY t.org_id
    FOR NO KEY UPDATE OF t),
advanced AS (
    UPDATE org_claim_turns t
    SET pass = t.pass + turns_in_order.given
    FROM turns_in_order
    WHERE t.org_id = turns_in_order.org_id)
SELECT id, org_id, attempts, recovered, cut_by_restart FROM claimed
