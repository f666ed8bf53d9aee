-- How many pending conflicts of :org the claim takes before conflict :id, itself pending: those whose not_before
-- comes first (on a tie, the lower id), as the claim orders an org's conflicts (schema 26). Counted up to :cap, so
-- that a huge backlog costs no more than :cap entries of policy_conflicts_pending_by_org; 0 when :id is not
-- pending. Runs under the org's scope.
SELECT count(*) FROM (
    SELECT 1
    FROM policy_conflicts me
    JOIN policy_conflicts p ON p.org_id = me.org_id AND p.synthesis_state = 'pending'
                           AND p.not_before <= me.not_before AND (p.not_before, p.id) < (me.not_before, me.id)
    WHERE me.org_id = :org AND me.id = :id AND me.synthesis_state = 'pending'
    LIMIT :cap) ahead
