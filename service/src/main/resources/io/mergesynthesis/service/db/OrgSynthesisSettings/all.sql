-- Every org that has settings; runs cross-tenant, for the operator.
SELECT org_id, model, monthly_budget_usd, weight, lane, updated_at FROM org_synthesis_settings ORDER BY org_id
