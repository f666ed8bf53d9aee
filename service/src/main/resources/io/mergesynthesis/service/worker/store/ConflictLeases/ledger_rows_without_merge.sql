-- The ledger rows of the calls an attempt paid for (:calls, a JSON array, possibly empty) when the attempt
-- stored no merge: included in every end of a lease without a merge, so that the calls commit with it. A call
-- whose answer would have been the merge is 'discarded'; every other call keeps its outcome. A call written
-- before (recorded early, or sent again after a commit whose answer was lost) is the same row (the same id and
-- created_at, both carried with the call), its outcome settled here.
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
ON CONFLICT (id, created_at) DO UPDATE SET outcome = excluded.outcome
