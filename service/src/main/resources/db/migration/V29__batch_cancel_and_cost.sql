-- merge-synthesis schema, version 29: a batch can be canceled, and keeps what it cost
-- (docs/adr/0072-the-batch-lane.md).
--
-- A cancel is one timestamp on the batch's row, not an update of every conflict in it: the poller that holds the
-- batch next asks the provider to cancel, and what the provider returns then (answers, and requests canceled) is
-- stored as any ended batch's results are.

ALTER TABLE llm_batches
    -- When and why a cancel was asked for: by the platform, by the org leaving the batch lane, or by a budget
    -- lowered below what its batches reserved.
    ADD COLUMN cancel_requested_at timestamptz,
    ADD COLUMN cancel_reason       text CONSTRAINT llm_batches_cancel_reason_check
        CHECK (cancel_reason IN ('requested', 'lane_changed', 'budget_lowered')),
    -- When the provider was asked; null until then.
    ADD COLUMN cancel_sent_at      timestamptz,
    -- What the batch's answered requests cost at the batch price, once its results are stored.
    ADD COLUMN cost_usd            numeric,
    -- The input tokens its requests hold in the provider's queue until it is done, as estimated when it was sent:
    -- OpenAI limits a model's enqueued tokens.
    ADD COLUMN input_tokens        bigint NOT NULL DEFAULT 0,
    ADD CONSTRAINT llm_batches_cancel_whole CHECK ((cancel_requested_at IS NULL) = (cancel_reason IS NULL));

-- The operator's console lists the newest batches first.
CREATE INDEX llm_batches_newest ON llm_batches (created_at DESC);

-- A cancel asked for by the platform is an event in the batch's org's stream, naming who asked.
ALTER DOMAIN conflict_event_type DROP CONSTRAINT conflict_event_type_check;
ALTER DOMAIN conflict_event_type ADD CONSTRAINT conflict_event_type_check
    CHECK (VALUE IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                     'conflict_acknowledged', 'conflict_resolved', 'synthesis_requeued',
                     'org_named', 'token_minted', 'token_revoked', 'org_settings_changed',
                     'batch_cancel_requested'));

-- An org's month of usage is kept by lane as well as by model, so that the usage page and GET /v1/usage can say
-- what the batch lane cost beside the interactive one. Every row kept before this schema is interactive.
ALTER TABLE org_usage_by_month ADD COLUMN lane text NOT NULL DEFAULT 'interactive';

CREATE OR REPLACE FUNCTION add_calls_to_org_month() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_spend_by_month AS s (org_id, month, cost_usd, calls)
    SELECT org_id, ledger_month(created_at), sum(cost_usd), count(*)
      FROM recorded
     GROUP BY org_id, ledger_month(created_at)
     ORDER BY org_id, ledger_month(created_at)
    ON CONFLICT (org_id, month)
        DO UPDATE SET cost_usd = s.cost_usd + excluded.cost_usd, calls = s.calls + excluded.calls;
    INSERT INTO org_usage_by_month (org_id, month, provider, model, lane, calls, input_tokens, output_tokens,
                                    cache_read_tokens, cache_write_tokens, cost_usd)
    SELECT org_id, ledger_month(created_at), provider, model, lane, count(*), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
      FROM recorded
     GROUP BY org_id, ledger_month(created_at), provider, model, lane;
    RETURN NULL;
END
$$;
