-- Month-to-date calls, tokens and cost by model (provider/model), of :org or, when it is null, of every org the
-- transaction can see. The month begins as in month_start.sql.
SELECT provider || '/' || model AS model, count(*) AS calls,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(cost_usd) AS cost_usd
FROM llm_usage_events
WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
  AND (CAST(:org AS uuid) IS NULL OR org_id = :org)
GROUP BY provider, model ORDER BY provider, model
