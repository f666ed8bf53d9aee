-- The calls made for conflict :id, oldest first (an attempt's first pass before its escalation); runs under
-- that conflict's org scope.
SELECT attempt, pass, provider, model, input_tokens, output_tokens, cache_read_tokens,
       cache_write_tokens, cost_usd, latency_ms, outcome, created_at, lane
FROM llm_usage_events WHERE conflict_id = :id
ORDER BY created_at, attempt, pass = 'escalation'
