-- How many conflicts are in each synthesis state, across orgs: the counts kept per org (schema 14), in which a
-- conflict in progress is pending, and the conflicts in progress, counted from the leases' index and taken from
-- pending.
WITH kept AS (
    SELECT synthesis_state, sum(n)::bigint AS n FROM org_conflict_totals GROUP BY synthesis_state),
working AS (
    SELECT count(*) AS n FROM policy_conflicts
     WHERE synthesis_state = 'in_progress')
SELECT synthesis_state, n - CASE WHEN synthesis_state = 'pending' THEN (SELECT n FROM working) ELSE 0 END AS n
  FROM kept
UNION ALL
SELECT 'in_progress', n FROM working
