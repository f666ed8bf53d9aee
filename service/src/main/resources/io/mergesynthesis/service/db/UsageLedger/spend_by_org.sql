-- Month-to-date spend per org that made calls this month; runs cross-tenant for the operator. The month begins
-- as in month_start.sql.
SELECT org_id, count(*) AS calls, sum(cost_usd) AS cost_usd FROM llm_usage_events
WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
GROUP BY org_id ORDER BY org_id
