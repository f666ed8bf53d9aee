-- merge-synthesis schema, version 1.
--
-- Two database roles carry the service's identities (see docs/adr/0002-database-roles-and-row-level-security.md):
--   merge_synthesis_tenant  subject to row-level security; every API request and every per-row worker
--                           transaction runs as it, with app.org_id set to one org.
--   merge_synthesis_sweep   BYPASSRLS; only the worker's cross-tenant claim and the platform-wide event
--                           export run as it, always together with row_security = off.
-- The service logs in as whatever DATABASE_USER is and switches with SET LOCAL ROLE per transaction, so
-- isolation holds even when the login role is a superuser. Creating a BYPASSRLS role needs a superuser;
-- on a managed server an administrator creates both roles beforehand and this block leaves them alone.
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_tenant') THEN
        CREATE ROLE merge_synthesis_tenant NOLOGIN NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_sweep') THEN
        CREATE ROLE merge_synthesis_sweep NOLOGIN BYPASSRLS;
    END IF;
    IF NOT pg_has_role(current_user, 'merge_synthesis_tenant', 'MEMBER') THEN
        EXECUTE format('GRANT merge_synthesis_tenant TO %I', current_user);
    END IF;
    IF NOT pg_has_role(current_user, 'merge_synthesis_sweep', 'MEMBER') THEN
        EXECUTE format('GRANT merge_synthesis_sweep TO %I', current_user);
    END IF;
END
$roles$;

-- The org a transaction acts for, or NULL. An unset custom setting reads as NULL on a fresh connection but
-- as '' on a pooled one that saw SET LOCAL before, so both mean "no org" and every tenant policy fails closed.
CREATE FUNCTION current_org_id() RETURNS uuid
    LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT nullif(current_setting('app.org_id', true), '')::uuid $$;

CREATE TABLE policy_conflicts (
    id                  uuid        PRIMARY KEY,
    org_id              uuid        NOT NULL,
    dedup_key           text        NOT NULL,
    action              text        NOT NULL CHECK (action IN ('tool_call', 'data_export', 'knowledge_query')),
    target              text        NOT NULL,
    rules               jsonb       NOT NULL,
    winner_policy_id    text        NOT NULL,
    detected_at         timestamptz NOT NULL,
    received_at         timestamptz NOT NULL DEFAULT now(),

    -- Synthesis: written only by the worker pool.
    synthesis_state     text        NOT NULL DEFAULT 'pending'
        CHECK (synthesis_state IN ('pending', 'in_progress', 'done', 'max_attempts_exceeded')),
    -- When any replica may claim the row next: the backoff deadline while pending, the lease expiry while
    -- in progress (so an expired lease is claimable again without anyone's help).
    not_before          timestamptz NOT NULL DEFAULT now(),
    lease_owner         text,
    lease_expires_at    timestamptz,
    attempts            integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_failure_reason text
        CHECK (last_failure_reason IN ('set_org_id', 'load_row', 'router_resolve', 'synthesizer', 'invalid_json',
                                       'write_merge', 'max_attempts_exceeded', 'unknown')),
    failure_marker      text        CHECK (failure_marker = 'synthesis_max_attempts_exceeded'),
    suggested_merge     jsonb,
    synthesized_at      timestamptz,

    -- Inbox: written only by the HTTP API.
    inbox_status        text        NOT NULL DEFAULT 'open'
        CHECK (inbox_status IN ('open', 'acknowledged', 'resolved')),
    acknowledged_at     timestamptz,
    resolved_at         timestamptz,
    resolution          text        CHECK (resolution IN ('accepted_suggestion', 'rejected_suggestion', 'manual')),
    resolution_note     text,

    updated_at          timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT policy_conflicts_org_dedup_key UNIQUE (org_id, dedup_key),
    CONSTRAINT policy_conflicts_done_has_merge CHECK (synthesis_state <> 'done' OR suggested_merge IS NOT NULL),
    CONSTRAINT policy_conflicts_marker_matches_state
        CHECK ((failure_marker IS NOT NULL) = (synthesis_state = 'max_attempts_exceeded')),
    CONSTRAINT policy_conflicts_resolved_has_resolution CHECK ((inbox_status = 'resolved') = (resolution IS NOT NULL))
);

-- The claim scans only rows that still need work; done and marked rows drop out of this index, so a claim
-- costs the same with ten or ten million finished conflicts behind it.
CREATE INDEX policy_conflicts_claimable ON policy_conflicts (not_before)
    WHERE synthesis_state IN ('pending', 'in_progress');

-- The inbox: one org's conflicts, newest first, keyset paged.
CREATE INDEX policy_conflicts_inbox ON policy_conflicts (org_id, received_at DESC, id DESC);

-- The SIEM stream. Rows are only ever inserted, in the same transaction as the change they describe.
-- tx_id is that transaction's id: readers page by (tx_id, id) and stop below the oldest transaction still
-- running, so an event whose transaction commits late is never skipped (see docs/adr).
CREATE TABLE conflict_events (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx_id       xid8        NOT NULL DEFAULT pg_current_xact_id(),
    org_id      uuid        NOT NULL,
    conflict_id uuid        NOT NULL REFERENCES policy_conflicts (id),
    event_type  text        NOT NULL
        CHECK (event_type IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                              'conflict_acknowledged', 'conflict_resolved')),
    occurred_at timestamptz NOT NULL DEFAULT now(),
    details     jsonb       NOT NULL DEFAULT '{}'::jsonb
);

CREATE INDEX conflict_events_stream ON conflict_events (tx_id, id);
CREATE INDEX conflict_events_org_stream ON conflict_events (org_id, tx_id, id);

-- Bearer tokens. Only a SHA-256 of the token is kept: tokens are 256 random bits, so a slow password hash
-- would add nothing but latency to every request.
CREATE TABLE api_tokens (
    id           uuid        PRIMARY KEY,
    token_sha256 bytea       NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
    role         text        NOT NULL CHECK (role IN ('org_admin', 'ingest', 'siem', 'platform')),
    org_id       uuid,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    CONSTRAINT api_tokens_org_matches_role CHECK ((role = 'platform') = (org_id IS NULL))
);

-- Tenant tables: RLS enabled and forced, so the table owner is held to it as well.
ALTER TABLE policy_conflicts ENABLE ROW LEVEL SECURITY;
ALTER TABLE policy_conflicts FORCE ROW LEVEL SECURITY;
CREATE POLICY policy_conflicts_org_isolation ON policy_conflicts
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

ALTER TABLE conflict_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflict_events FORCE ROW LEVEL SECURITY;
CREATE POLICY conflict_events_org_isolation ON conflict_events
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

-- Least privilege: no DELETE anywhere, events are insert-only, tokens are read-only to the service roles
-- (the token CLI writes them as the login role).
GRANT USAGE ON SCHEMA public TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION current_org_id() TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT, UPDATE ON policy_conflicts TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT ON conflict_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE conflict_events_id_seq TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT ON api_tokens TO merge_synthesis_tenant, merge_synthesis_sweep;
