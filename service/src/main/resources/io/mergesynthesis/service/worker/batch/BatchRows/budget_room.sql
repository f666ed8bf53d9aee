-- What :org may still spend this month on new batches: its monthly budget, less what it has spent, less what its
-- batches not yet done are expected to cost (reserved when each was opened). No row when the org has no budget.
-- Runs under the org's scope.
SELECT s.monthly_budget_usd - org_month_spend(:org)
       - coalesce((SELECT sum(b.reserved_cost_usd) FROM llm_batches b
                   WHERE b.org_id = :org AND b.state <> 'done'), 0) AS room
FROM org_synthesis_settings s
WHERE s.org_id = :org AND s.monthly_budget_usd IS NOT NULL
