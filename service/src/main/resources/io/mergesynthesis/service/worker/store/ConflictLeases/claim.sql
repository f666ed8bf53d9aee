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
-- The fair share, start-time fair queueing with the tags on the conflicts. The orgs with a conflict pending are
-- found by one descent per org of policy_conflicts_pending_by_org, which yields each org's oldest (waiting: a
-- recursive walk from one org to the next); those with one due are kept. Each org's last tag is the highest
-- claim_tag among its conflicts in flight or done (one descent of policy_conflicts_claim_tags_by_org); the level
-- is the highest last tag among them. An org's next conflict starts at its last tag plus 1 / weight, or at the
-- level when that is higher, so an org cannot bank a share it did not use, and an org that has had nothing for a
-- while comes before the next conflict of every busy org, whatever their backlogs. The claim keeps the
-- :reach orgs that start first, reads :limit of each one's oldest due rows and its share of :reach - :limit more,
-- the nth starting (n - 1) / weight after the first, and locks FOR UPDATE SKIP LOCKED the :limit that start first,
-- writing each one's start as its claim_tag. No org has more than :limit among those, so the rows to spare change
-- nothing of the order; they are there because claims beside this one (a pool's workers each claim their next as
-- they store) rank the same rows first and take them, and this one then takes the next ones rather than come back
-- short, also when one org alone has work.
-- Nothing else is written: claims of several replicas share one picture and never wait for one another.
--
-- The rows offered are locked by the row versions the offer read (ctid), not looked up again by id: no index
-- choice is left to the planner there. Its statistics may date from a moment with nothing pending (a drained
-- table analysed before a tenant's import), and then every partial index looks empty and any of them, read
-- whole with a filter, looks as cheap as the primary key. LockRows follows a version another claim has updated
-- since to the newest one and checks it again, so a row claimed meanwhile is passed over.
--
-- The walk costs a few index pages per waiting org, too much for every claim of a busy pool. So a pool walks
-- now and then (waiting_orgs.sql) and names here, in :candidates (ids between commas), the orgs its picture puts
-- first, with the level it saw (:level); the claim reads only their last tags, fresh, and lifts them to the
-- higher of that level and their own highest. :candidates '' walks every waiting org here, as a claim without
-- a picture does, :level then 0. The walk sits under a one-time filter on :candidates and is not read otherwise.
--
-- Pending rows of a route whose provider asked this replica to wait are left for later (:heldRoutes, a list
-- like ',anthropic,*,' of provider names, '*' for the configured primary's route of orgs without a model of their
-- own; '' when none): one provider's pause must not stop the claims of another's route. Such an org is passed
-- over. An org whose conflicts wait for its budget has none pending and is not seen at all. An expired lease is
-- taken whatever its route, to be handed back at once if it must wait, and keeps its tag.
--
-- A route whose hold ended lately is paced (:pacedRoutes, in the same form): the provider lets this replica start
-- its calls only now and then, and every conflict of the route claimed beyond the next turn is handed straight
-- back. A claim takes at most one pending conflict of each paced route, the one that starts first; the pool asks
-- again as its workers free up.
--
-- The batch lane's conflicts are not this claim's (schema 28): an org whose lane is batch is passed over, and so is
-- a conflict reported with lane batch; the batch worker takes them (the statements of worker/batch).
--
-- An expired lease is "cut by a restart" when it was granted (the claim stamps updated_at) before the database
-- server last started. An inbox write since can only move updated_at later, which errs towards treating the
-- lease as ended by a crash.
WITH RECURSIVE expired AS (
    SELECT id, true AS recovered, updated_at < pg_postmaster_start_time() AS cut_by_restart,
           NULL::float8 AS tag
    FROM policy_conflicts
    WHERE synthesis_state = 'in_progress' AND lease_expires_at <= now()
    ORDER BY lease_expires_at
    LIMIT :limit
    FOR UPDATE SKIP LOCKED),
waiting (org_id, oldest) AS (
    (SELECT org_id, not_before
     FROM policy_conflicts
     WHERE synthesis_state = 'pending'
     ORDER BY org_id, not_before
     LIMIT 1)
    UNION ALL
    SELECT next_org.org_id, next_org.not_before
    FROM waiting w CROSS JOIN LATERAL (
        SELECT p.org_id, p.not_before
        FROM policy_conflicts p
        WHERE p.synthesis_state = 'pending' AND p.org_id > w.org_id
        ORDER BY p.org_id, p.not_before
        LIMIT 1) next_org),
candidate_orgs AS (
    SELECT org_id, oldest FROM waiting WHERE :candidates = '' AND oldest <= now()
    UNION ALL
    SELECT CAST(org AS uuid), NULL FROM unnest(string_to_array(nullif(:candidates, ''), ',')) AS org),
due AS (
    SELECT c.org_id, c.oldest, coalesce(s.weight, 1) AS weight, coalesce(split_part(s.model, '/', 1), '*') AS route,
           (SELECT f.claim_tag FROM policy_conflicts f
            WHERE f.org_id = c.org_id AND f.synthesis_state IN ('in_progress', 'done')
            ORDER BY f.claim_tag DESC
            LIMIT 1) AS last_tag
    FROM candidate_orgs c LEFT JOIN org_synthesis_settings s ON s.org_id = c.org_id
    WHERE (:heldRoutes = '' OR strpos(:heldRoutes, ',' || coalesce(split_part(s.model, '/', 1), '*') || ',') = 0)
      AND s.lane IS DISTINCT FROM 'batch'),
shares AS (
    SELECT org_id, oldest, weight, route, greatest(last_tag + 1.0 / weight, level) AS starts
    FROM due CROSS JOIN (SELECT greatest(coalesce(max(last_tag), 0), :level) AS level FROM due) l
    ORDER BY starts, oldest NULLS LAST
    LIMIT :reach),
offered AS (
    SELECT o.ctid, o.not_before, sh.route,
           sh.starts + (row_number() OVER (PARTITION BY sh.org_id ORDER BY o.not_before, o.ctid) - 1)::float8
               / sh.weight AS tag
    FROM shares sh
    CROSS JOIN (SELECT count(*) AS orgs FROM shares) k
    CROSS JOIN LATERAL (
        SELECT p.ctid, p.not_before
        FROM policy_conflicts p
        WHERE p.org_id = sh.org_id AND p.synthesis_state = 'pending' AND p.not_before <= now()
          AND p.lane IS DISTINCT FROM 'batch'
        ORDER BY p.not_before
        LIMIT :limit + (:reach - :limit + k.orgs - 1) / k.orgs) o),
paced AS (
    SELECT ctid, not_before, tag
    FROM (SELECT offered.*, row_number() OVER (PARTITION BY route ORDER BY tag, not_before) AS nth
          FROM offered) r
    WHERE nth = 1 OR :pacedRoutes = '' OR strpos(:pacedRoutes, ',' || route || ',') = 0),
fresh AS (
    SELECT p.id, false AS recovered, false AS cut_by_restart, offered.tag
    FROM paced offered JOIN policy_conflicts p ON p.ctid = offered.ctid
    WHERE p.synthesis_state = 'pending' AND p.not_before <= now() AND p.lane IS DISTINCT FROM 'batch'
    ORDER BY offered.tag, offered.not_before
    LIMIT :limit
    FOR UPDATE OF p SKIP LOCKED),
picked AS (
    SELECT * FROM expired UNION ALL SELECT * FROM fresh
    LIMIT :limit)
UPDATE policy_conflicts c
SET synthesis_state = 'in_progress',
    lease_owner = :owner,
    lease_expires_at = now() + :leaseMicros * interval '1 microsecond',
    not_before = now() + :leaseMicros * interval '1 microsecond',
    attempts = c.attempts + 1,
    claim_tag = coalesce(picked.tag, c.claim_tag),
    updated_at = now()
FROM picked
WHERE c.id = picked.id
RETURNING c.id, c.org_id, c.attempts, picked.recovered, picked.cut_by_restart, c.claim_tag
