-- Month-to-date calls, tokens and cost by model (provider/model) and lane, of :org or, when it is null, of every org
-- the transaction can see: summed from the usage kept per org, month, model (schema 17) and lane (schema 29), a
-- few rows per org whatever its number of calls. The month begins as in month_start.sql.
SELECT provider || '/' || model AS model, lane, sum(calls)::bigint AS calls,
       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
       sum(cache_read_tokens)::bigint AS cache_read_tokens, sum(cache_write_tokens)::bigint AS cache_write_tokens,
       sum(cost_usd) AS cost_usd
FROM org_usage_by_month
WHERE month = ledger_month(now())
  AND (CAST(:org AS uuid) IS NULL OR org_id = :org)
GROUP BY provider, model, lane ORDER BY provider, model, lane
