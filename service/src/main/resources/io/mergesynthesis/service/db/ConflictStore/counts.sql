-- How many of :org's conflicts are in each pair of synthesis state and inbox status, as kept by the triggers of
-- schema 14: a sum over the org's few count rows, whatever the number of its conflicts.
SELECT synthesis_state, inbox_status, n
  FROM org_conflict_totals WHERE org_id = :org
