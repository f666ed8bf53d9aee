-- merge-synthesis schema, version 2: what real synthesis needs around the worker.
--
--   llm_usage_events           the usage ledger: one row per provider call the provider answered
--   org_synthesis_settings     per-org model override and monthly budget, set by the platform
--   synthesis_attempt_history  why each attempt that did not store a merge ended, for the conflict view
--   waiting_budget             a synthesis state for conflicts of an org whose month-to-date spend reached its
--                              budget; such rows are outside the claimable index, so they cost no claim
--                              until the budget rises or a new month begins.
--   not_needed                 a synthesis state for conflicts resolved before their synthesis began: no call
--                              is paid for a decision already taken.

ALTER TABLE policy_conflicts DROP CONSTRAINT policy_conflicts_synthesis_state_check;
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_synthesis_state_check
    CHECK (synthesis_state IN ('pending', 'in_progress', 'done', 'max_attempts_exceeded', 'waiting_budget',
                               'not_needed'));

-- Rows parked for a budget, per org: found again in one index range when the budget rises.
CREATE INDEX policy_conflicts_waiting_budget ON policy_conflicts (org_id) WHERE synthesis_state = 'waiting_budget';

CREATE TABLE llm_usage_events (
    -- Chosen by the worker before the first write, so that a write tried again after an unclear commit can
    -- never record the same call twice (ON CONFLICT DO NOTHING).
    id                  uuid          PRIMARY KEY,
    org_id              uuid          NOT NULL,
    conflict_id         uuid          NOT NULL REFERENCES policy_conflicts (id),
    attempt             integer       NOT NULL CHECK (attempt >= 1),
    pass                text          NOT NULL CHECK (pass IN ('primary', 'escalation')),
    provider            text          NOT NULL,
    model               text          NOT NULL,
    -- The provider's own usage figures. input_tokens excludes the tokens read from or written to its prompt
    -- cache, which are counted apart (so the four add up to everything the provider billed as input or output).
    input_tokens        bigint        NOT NULL CHECK (input_tokens >= 0),
    output_tokens       bigint        NOT NULL CHECK (output_tokens >= 0),
    cache_read_tokens   bigint        NOT NULL DEFAULT 0 CHECK (cache_read_tokens >= 0),
    cache_write_tokens  bigint        NOT NULL DEFAULT 0 CHECK (cache_write_tokens >= 0),
    cost_usd            numeric(18,9) NOT NULL CHECK (cost_usd >= 0),
    latency_ms          integer       NOT NULL CHECK (latency_ms >= 0),
    outcome             text          NOT NULL CHECK (outcome IN ('stored', 'discarded', 'failed', 'rate_limited')),
    provider_request_id text,
    created_at          timestamptz   NOT NULL DEFAULT now()
);

-- Month-to-date spend of one org (budgets, GET /v1/usage) without touching the table's heap.
CREATE INDEX llm_usage_events_org_month ON llm_usage_events (org_id, created_at) INCLUDE (cost_usd);
-- The calls of one conflict, for its view.
CREATE INDEX llm_usage_events_conflict ON llm_usage_events (conflict_id, created_at);

CREATE TABLE org_synthesis_settings (
    org_id             uuid          PRIMARY KEY,
    -- "<provider>/<model>" from the configured models, or NULL for the configured primary model.
    model              text,
    -- NULL: no budget.
    monthly_budget_usd numeric(18,6) CHECK (monthly_budget_usd >= 0),
    updated_at         timestamptz   NOT NULL DEFAULT now()
);

CREATE TABLE synthesis_attempt_history (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id       uuid        NOT NULL,
    conflict_id  uuid        NOT NULL REFERENCES policy_conflicts (id),
    attempt      integer     NOT NULL CHECK (attempt >= 0),
    -- transient_failure and permanent_failure count towards synthesis.maxAttempts; deferred does not (a rate
    -- limit, a budget, a database outage).
    outcome      text        NOT NULL CHECK (outcome IN ('transient_failure', 'permanent_failure', 'deferred')),
    -- One of the eight failure reasons, or why an attempt was deferred.
    reason       text        NOT NULL,
    detail       text,
    finished_at  timestamptz NOT NULL DEFAULT now(),
    not_before   timestamptz
);

CREATE INDEX synthesis_attempt_history_conflict ON synthesis_attempt_history (conflict_id, id);

ALTER TABLE llm_usage_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_usage_events FORCE ROW LEVEL SECURITY;
CREATE POLICY llm_usage_events_org_isolation ON llm_usage_events
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

ALTER TABLE org_synthesis_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_synthesis_settings FORCE ROW LEVEL SECURITY;
CREATE POLICY org_synthesis_settings_org_isolation ON org_synthesis_settings
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

ALTER TABLE synthesis_attempt_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE synthesis_attempt_history FORCE ROW LEVEL SECURITY;
CREATE POLICY synthesis_attempt_history_org_isolation ON synthesis_attempt_history
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

-- The history is insert-only, like the event stream. Of a ledger row only the outcome is ever updated: a call put
-- on record before its attempt ended (ahead of an escalation) is settled when the attempt ends.
GRANT SELECT, INSERT ON llm_usage_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT UPDATE (outcome) ON llm_usage_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT ON synthesis_attempt_history TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE synthesis_attempt_history_id_seq TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT, UPDATE ON org_synthesis_settings TO merge_synthesis_tenant, merge_synthesis_sweep;
