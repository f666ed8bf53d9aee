-- store_merge.sql for a merge that cost provider calls: the same fenced update, count row and event, and the
-- ledger rows of the calls (:calls, a JSON array) in the same statement, so that they commit with the merge. The
-- calls are recorded whether or not the fence let the merge be written, since they were paid for; a call whose
-- answer is the merge is 'stored' when it was written and 'discarded' when not. A call written before (recorded
-- early, or sent again after a commit whose answer was lost) is the same row, its id and created_at carried with
-- the call, and its outcome is settled here. The one row returned counts the merges stored: 1, or 0 when the
-- lease was no longer this worker's.
WITH stored AS (
    UPDATE policy_conflicts
    SET suggested_merge = CAST(:merge AS jsonb),
        merge_check_version = :checkVersion,
        synthesis_state = 'done',
        synthesized_at = now(),
        last_failure_reason = NULL,
        lease_owner = NULL,
        lease_expires_at = NULL,
        not_before = now(),
        updated_at = now()
    WHERE id = :id AND lease_owner = :owner AND attempts = :attempts
    RETURNING id, inbox_status),
counted AS (
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, out_state, out_status, n)
    SELECT :org, 'done', inbox_status, 'pending', inbox_status, 1 FROM stored),
event AS (
    INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
    SELECT :org, id, :type, CAST(:details AS jsonb) FROM stored),
ledger AS (
    INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                                  output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                                  latency_ms, outcome, provider_request_id, created_at, lane)
    SELECT e.id, :org, :conflict, :attempt, e.pass, e.provider, e.model, e.input_tokens, e.output_tokens,
           e.cache_read_tokens, e.cache_write_tokens, e.cost_usd, e.latency_ms,
           CASE WHEN e.outcome <> 'answer' THEN e.outcome
                WHEN EXISTS (SELECT 1 FROM stored) THEN 'stored' ELSE 'discarded' END,
           e.provider_request_id, e.created_at, coalesce(e.lane, 'interactive')
    FROM jsonb_to_recordset(CAST(:calls AS jsonb)) AS e(
        id uuid, pass text, provider text, model text, input_tokens bigint, output_tokens bigint,
        cache_read_tokens bigint, cache_write_tokens bigint, cost_usd numeric, latency_ms integer,
        outcome text, provider_request_id text, created_at timestamptz, lane text)
    ON CONFLICT (id, created_at) DO UPDATE SET outcome = excluded.outcome)
SELECT count(*) FROM stored
