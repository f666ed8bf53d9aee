-- Rows waiting for synthesis, counted up to :cap, so that a huge backlog costs no more than :cap index entries
-- to report. Runs cross-tenant.
SELECT count(*) FROM (
    SELECT 1 FROM policy_conflicts
    WHERE synthesis_state IN ('pending', 'in_progress')
    LIMIT :cap) waiting
