-- How many of :org's conflicts are in each pair of synthesis state and inbox status: the counts schema 14 keeps, a
-- sum over the org's few count rows whatever the number of its conflicts, in which a conflict in progress is
-- pending; and the org's conflicts in progress, counted here from the leases' index (at most one per busy worker
-- of the fleet), and taken from pending.
WITH kept AS (
    SELECT synthesis_state, inbox_status, n FROM org_conflict_totals WHERE org_id = :org),
working AS (
    SELECT inbox_status, count(*) AS n
      FROM policy_conflicts
     WHERE synthesis_state = 'in_progress' AND org_id = :org
     GROUP BY inbox_status)
SELECT k.synthesis_state, k.inbox_status,
       k.n - CASE WHEN k.synthesis_state = 'pending' THEN coalesce(w.n, 0) ELSE 0 END AS n
  FROM kept k LEFT JOIN working w ON w.inbox_status = k.inbox_status
UNION ALL
SELECT 'in_progress', inbox_status, n FROM working
