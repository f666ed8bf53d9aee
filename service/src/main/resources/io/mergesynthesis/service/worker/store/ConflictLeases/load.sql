-- The leased row :id as its org's scope shows it, its org's model, and whether the org's month-to-date spend
-- has reached its budget. org_month_spend (schema 8) sits inside the CASE so that it runs, and its sum over
-- the ledger is set up, only for an org that has a budget.
SELECT c.id, c.org_id, c.dedup_key, c.action, c.target, c.rules::text AS rules, c.winner_policy_id,
       c.detected_at, c.synthesis_state, c.lease_owner, c.attempts, c.inbox_status,
       s.model AS org_model,
       CASE WHEN s.monthly_budget_usd IS NULL THEN false
            ELSE s.monthly_budget_usd <= org_month_spend(c.org_id) END AS budget_reached
FROM policy_conflicts c LEFT JOIN org_synthesis_settings s ON s.org_id = c.org_id
WHERE c.id = :id
