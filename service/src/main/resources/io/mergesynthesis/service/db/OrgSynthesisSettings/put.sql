-- Replaces the settings of :org (:model and :budget, each null for the default; :weight, its share of the claims,
-- null to keep the one it has, 1 for an org without settings; :lane likewise, interactive for an org without
-- settings). Runs under that org's scope.
INSERT INTO org_synthesis_settings (org_id, model, monthly_budget_usd, weight, lane, updated_at)
VALUES (:org, :model, :budget, coalesce(CAST(:weight AS integer), 1), coalesce(CAST(:lane AS text), 'interactive'),
        now())
ON CONFLICT (org_id) DO UPDATE
    SET model = excluded.model, monthly_budget_usd = excluded.monthly_budget_usd,
        weight = coalesce(CAST(:weight AS integer), org_synthesis_settings.weight),
        lane = coalesce(CAST(:lane AS text), org_synthesis_settings.lane),
        updated_at = excluded.updated_at
RETURNING org_id, model, monthly_budget_usd, weight, lane, updated_at
