-- Puts back to pending, claimable at once, the waiting_budget conflicts of every org (of :org alone when it is
-- not null) whose month-to-date spend is below its budget again, or that has no budget any more. Under a tenant
-- scope it sees only that org; cross-tenant it sees them all.
UPDATE policy_conflicts c
SET synthesis_state = 'pending', not_before = now(), updated_at = now()
WHERE c.synthesis_state = 'waiting_budget'
  AND (CAST(:org AS uuid) IS NULL OR c.org_id = :org)
  AND c.org_id IN (
      SELECT w.org_id
      FROM (SELECT DISTINCT org_id FROM policy_conflicts
            WHERE synthesis_state = 'waiting_budget') w
      LEFT JOIN org_synthesis_settings s ON s.org_id = w.org_id
      WHERE s.monthly_budget_usd IS NULL
         OR s.monthly_budget_usd > org_month_spend(w.org_id))
