-- The settings of :org; no row when none were ever set. Runs under that org's scope.
SELECT org_id, model, monthly_budget_usd, weight, lane, updated_at FROM org_synthesis_settings WHERE org_id = :org
