-- merge-synthesis schema, version 13: what the operator's console needs beyond conflicts (docs/adr/0041).
--
--   org_names           the display name the platform gives an org: shown instead of its id on every page, and
--                       searched by prefix. One name per org, and no two orgs with the same name (ignoring case),
--                       so a name always points at one org.
--   replica_heartbeats  one row per running replica, rewritten every heartbeat interval by the replica itself:
--                       who it is, how busy its workers are, and per provider its circuit, pace and concurrency
--                       limit (a JSON object, as the set of providers is each replica's own configuration). Rows
--                       silent for ten intervals are deleted by the next beat of any replica.
--   conflict_events     carries the platform's own changes too (an org named, a token minted or revoked): such an
--                       event names no conflict, and a platform token's events name no org either. Row-level
--                       security keeps an org's events to that org as before; an event of no org is read only by
--                       the platform-wide export.
--   indexes             for the operator's lists and charts across orgs: marked conflicts newest first, and every
--                       stream counted per minute (merges, attempt endings, paid calls) by time alone.

CREATE TABLE org_names (
    org_id   uuid        PRIMARY KEY,
    name     text        NOT NULL
        CHECK (length(name) BETWEEN 1 AND 80 AND name = btrim(name) AND name !~ '[[:cntrl:]]'),
    named_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX org_names_unique_name ON org_names (lower(name));
CREATE INDEX org_names_by_prefix ON org_names (lower(name) text_pattern_ops);

ALTER TABLE org_names ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_names FORCE ROW LEVEL SECURITY;
CREATE POLICY org_names_org_isolation ON org_names
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

-- An org's own pages read its name; only the platform (across orgs) names one.
GRANT SELECT ON org_names TO merge_synthesis_tenant;
GRANT SELECT, INSERT, UPDATE ON org_names TO merge_synthesis_sweep;

CREATE TABLE replica_heartbeats (
    replica_id    text        PRIMARY KEY,
    host          text        NOT NULL,
    version       text        NOT NULL,
    started_at    timestamptz NOT NULL,
    interval_ms   integer     NOT NULL CHECK (interval_ms > 0),
    workers       integer     NOT NULL CHECK (workers >= 0),
    in_flight     integer     NOT NULL CHECK (in_flight >= 0),
    last_claim_at timestamptz,
    beat_at       timestamptz NOT NULL,
    -- Set by a replica that shuts down in order; a replica that dies leaves it empty and simply stops beating.
    stopped_at    timestamptz,
    providers     jsonb       NOT NULL DEFAULT '{}'::jsonb
);

-- The one table the service deletes from: a heartbeat row describes a process, not a fact to keep.
GRANT SELECT, INSERT, UPDATE, DELETE ON replica_heartbeats TO merge_synthesis_sweep;

ALTER TABLE conflict_events
    ALTER COLUMN conflict_id DROP NOT NULL,
    ALTER COLUMN org_id DROP NOT NULL;

ALTER DOMAIN conflict_event_type DROP CONSTRAINT conflict_event_type_check;
ALTER DOMAIN conflict_event_type ADD CONSTRAINT conflict_event_type_check
    CHECK (VALUE IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                     'conflict_acknowledged', 'conflict_resolved', 'synthesis_requeued',
                     'org_named', 'token_minted', 'token_revoked'));

CREATE INDEX policy_conflicts_marked_newest ON policy_conflicts (updated_at DESC, id DESC)
    WHERE synthesis_state = 'max_attempts_exceeded';
CREATE INDEX conflict_events_merges_by_time ON conflict_events (occurred_at)
    WHERE event_type = 'merge_synthesized';
CREATE INDEX synthesis_attempt_history_by_time ON synthesis_attempt_history (finished_at);
CREATE INDEX llm_usage_events_by_time ON llm_usage_events (created_at) INCLUDE (cost_usd);
