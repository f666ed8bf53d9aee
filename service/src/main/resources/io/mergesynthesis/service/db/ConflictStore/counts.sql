-- How many of :org's conflicts are in each pair of synthesis state and inbox status: one scan of its rows.
SELECT synthesis_state, inbox_status, count(*) AS n
  FROM policy_conflicts WHERE org_id = :org
 GROUP BY synthesis_state, inbox_status
