-- The orgs with conflicts due for the batch lane: those whose lane is batch and that have a conflict pending
-- and due, those in lane auto with more than :autoAbove conflicts waiting (the kept counts tell, without reading
-- the conflicts), and those with a conflict reported with lane batch pending and due. Runs cross-tenant.
SELECT s.org_id
FROM org_synthesis_settings s
WHERE s.lane = 'batch'
  AND EXISTS (SELECT 1 FROM policy_conflicts p
              WHERE p.org_id = s.org_id AND p.synthesis_state = 'pending' AND p.not_before <= now())
UNION
SELECT s.org_id
FROM org_synthesis_settings s
WHERE s.lane = 'auto'
  AND (SELECT sum(t.n) FROM org_conflict_totals t
       WHERE t.org_id = s.org_id AND t.synthesis_state = 'pending') > :autoAbove
UNION
SELECT DISTINCT p.org_id
FROM policy_conflicts p
WHERE p.synthesis_state = 'pending' AND p.lane = 'batch' AND p.not_before <= now()
LIMIT :limit
