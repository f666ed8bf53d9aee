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
