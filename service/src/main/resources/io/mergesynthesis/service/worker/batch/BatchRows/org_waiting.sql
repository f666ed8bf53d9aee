-- How many of :org's conflicts wait (pending or being worked on), from the kept counts. Runs under the org's scope.
SELECT coalesce(sum(n), 0) FROM org_conflict_totals WHERE org_id = :org AND synthesis_state = 'pending'
