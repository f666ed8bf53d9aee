-- Counts every org's conflicts afresh (one in progress as pending, as the counts keep it) and puts the counts in place of the kept rows, in one statement and so one
-- snapshot: the rows it deletes are exactly those of the changes its count sees. A change committed after the
-- snapshot is in neither, and its own count row stays to count it; changes are never held back. Runs only after
-- wait_for_folding.sql, in the same transaction. The one row returned is how many count rows were written.
WITH dropped AS (DELETE FROM org_conflict_counts),
written AS (
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
    SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
      FROM policy_conflicts
     GROUP BY org_id, counted_state(synthesis_state), inbox_status
    RETURNING 1)
SELECT count(*) FROM written
