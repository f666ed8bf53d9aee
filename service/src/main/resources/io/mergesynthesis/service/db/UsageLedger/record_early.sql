-- Puts answered calls (:calls, a JSON array) of conflict :conflict, attempt :attempt, on record before the
-- attempt ends (ahead of an escalation), as not stored: a call whose answer might yet be the merge is
-- 'discarded' for now. The attempt's end writes the calls again and settles their outcome, so a call already on
-- record is left alone here. Its id and created_at (when the provider answered) travel with the call, so
-- every write of it names the same row, in the same month's partition.
INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                              latency_ms, outcome, provider_request_id, created_at, lane)
SELECT e.id, :org, :conflict, :attempt, e.pass, e.provider, e.model, e.input_tokens, e.output_tokens,
       e.cache_read_tokens, e.cache_write_tokens, e.cost_usd, e.latency_ms,
       CASE WHEN e.outcome <> 'answer' THEN e.outcome ELSE 'discarded' END,
       e.provider_request_id, e.created_at, coalesce(e.lane, 'interactive')
FROM jsonb_to_recordset(CAST(:calls AS jsonb)) AS e(
    id uuid, pass text, provider text, model text, input_tokens bigint, output_tokens bigint,
    cache_read_tokens bigint, cache_write_tokens bigint, cost_usd numeric, latency_ms integer,
    outcome text, provider_request_id text, created_at timestamptz, lane text)
ON CONFLICT (id, created_at) DO NOTHING
