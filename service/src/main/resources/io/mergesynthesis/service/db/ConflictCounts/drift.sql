-- Where the kept counts differ from the conflicts themselves: each org and pair whose kept count is not the
-- number of its conflicts in that pair (a conflict in progress counted as pending, as the counts keep it), with
-- both numbers. Empty when the counts are exact. Reads every conflict.
WITH actual AS (
    SELECT org_id, counted_state(synthesis_state) AS synthesis_state, inbox_status, count(*) AS n
      FROM policy_conflicts GROUP BY 1, 2, 3)
SELECT org_id, synthesis_state, inbox_status, coalesce(k.n, 0) AS kept, coalesce(a.n, 0) AS actual
  FROM org_conflict_totals k
  FULL JOIN actual a USING (org_id, synthesis_state, inbox_status)
 WHERE coalesce(k.n, 0) <> coalesce(a.n, 0)
 ORDER BY org_id, synthesis_state, inbox_status
