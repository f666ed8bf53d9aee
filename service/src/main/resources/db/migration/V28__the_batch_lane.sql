-- merge-synthesis schema, version 28: the batch lane, conflicts sent to a provider's batch API at its batch price
-- (docs/adr/0072-the-batch-lane.md).
--
-- A batch's row is written, with its conflicts marked batched and pointing at it, before the provider hears of
-- the batch; the provider's id is recorded once the create is answered. A row without that id is a create that
-- may or may not have arrived: the replica that finds it looks for the batch at the provider (its custom_ids carry
-- the row's id) before anything is sent again.

-- The lane of an org: interactive (each conflict its own call, as before), batch, or auto (batch while many wait).
ALTER TABLE org_synthesis_settings
    ADD COLUMN lane text NOT NULL DEFAULT 'interactive' CONSTRAINT org_synthesis_settings_lane_check
        CHECK (lane IN ('interactive', 'batch', 'auto'));

-- A conflict in a batch is batched: no claim takes it and lease recovery does not see it (it has no lease).
ALTER DOMAIN synthesis_state DROP CONSTRAINT synthesis_state_check;
ALTER DOMAIN synthesis_state ADD CONSTRAINT synthesis_state_check
    CHECK (VALUE IN ('pending', 'in_progress', 'done', 'max_attempts_exceeded', 'waiting_budget', 'not_needed',
                     'batched'));

CREATE TABLE llm_batches (
    id                 uuid        PRIMARY KEY,
    org_id             uuid        NOT NULL,
    provider           text        NOT NULL,
    model              text        NOT NULL,
    -- Null until the create is answered: a row without it may stand for a batch the provider holds.
    provider_batch_id  text,
    state              text        NOT NULL CONSTRAINT llm_batches_state_check
        CHECK (state IN ('sending', 'in_progress', 'ended', 'done')),
    requests           integer     NOT NULL CONSTRAINT llm_batches_requests_check CHECK (requests >= 1),
    reserved_cost_usd  numeric     NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    sent_at            timestamptz,
    ended_at           timestamptz,
    -- One replica at a time polls a batch: the holder and the end of its hold.
    poll_owner         text,
    poll_until         timestamptz,
    next_poll_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT llm_batches_provider_batch_id_key UNIQUE (provider, provider_batch_id)
);

-- The batches still to poll, by when they are due.
CREATE INDEX llm_batches_to_poll ON llm_batches (next_poll_at) WHERE state <> 'done';

ALTER TABLE llm_batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_batches FORCE ROW LEVEL SECURITY;
CREATE POLICY llm_batches_org_isolation ON llm_batches
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());
GRANT SELECT, INSERT, UPDATE ON llm_batches TO merge_synthesis_tenant, merge_synthesis_sweep;

-- An item reported with "lane": "batch" goes in a batch whatever its org's lane; null follows the org's.
ALTER TABLE policy_conflicts
    ADD COLUMN lane text CONSTRAINT policy_conflicts_lane_check CHECK (lane IN ('interactive', 'batch')),
    ADD COLUMN batch_id uuid,
    ADD COLUMN batched_at timestamptz;

CREATE INDEX policy_conflicts_by_batch ON policy_conflicts (batch_id) WHERE synthesis_state = 'batched';

-- The conflicts reported for the batch lane that wait, by org: the batch lane looks for them every few seconds on
-- every replica, and without this would read every pending conflict to find the few.
CREATE INDEX policy_conflicts_batch_lane_waiting ON policy_conflicts (org_id, not_before)
    WHERE synthesis_state = 'pending' AND lane = 'batch';

-- Which lane paid for a call; every call before this schema was interactive.
ALTER TABLE llm_usage_events
    ADD COLUMN lane text NOT NULL DEFAULT 'interactive' CONSTRAINT llm_usage_events_lane_check
        CHECK (lane IN ('interactive', 'batch'));
