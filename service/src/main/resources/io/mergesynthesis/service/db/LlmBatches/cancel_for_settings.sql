-- Asks that :org's batches not yet done be canceled at their provider after its settings changed: every one when
-- :laneLeft (the org left the batch lane for the interactive one), otherwise every one once its budget is below
-- its month's spend and what its batches reserved. Each is polled at once, so the provider hears of it soon.
-- Runs under the org's scope.
UPDATE llm_batches b
SET cancel_requested_at = now(),
    cancel_reason = CASE WHEN :laneLeft THEN 'lane_changed' ELSE 'budget_lowered' END,
    next_poll_at = now()
WHERE b.org_id = :org AND b.state <> 'done' AND b.cancel_requested_at IS NULL
  AND (:laneLeft
       OR EXISTS (SELECT 1 FROM org_synthesis_settings s
                  WHERE s.org_id = :org AND s.monthly_budget_usd IS NOT NULL
                    AND s.monthly_budget_usd < org_month_spend(:org)
                        + (SELECT coalesce(sum(d.reserved_cost_usd), 0) FROM llm_batches d
                           WHERE d.org_id = :org AND d.state <> 'done')))
RETURNING b.id
