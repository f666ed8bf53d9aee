-- Replaces the settings of :org (:model and :budget, each null for the default). Runs under that org's scope.
INSERT INTO org_synthesis_settings (org_id, model, monthly_budget_usd, updated_at)
VALUES (:org, :model, :budget, now())
ON CONFLICT (org_id) DO UPDATE
    SET model = excluded.model, monthly_budget_usd = excluded.monthly_budget_usd,
        updated_at = excluded.updated_at
RETURNING org_id, model, monthly_budget_usd, updated_at
