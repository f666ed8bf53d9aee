-- merge-synthesis schema, version 15: the three tables that only grow are partitioned by month
-- (docs/adr/0049-monthly-partitions-and-retention.md).
--
--   conflict_events            by occurred_at   the SIEM stream
--   llm_usage_events           by created_at    the usage ledger; created_at is now given by the worker (the moment
--                                               the provider answered), since the key must name the partition
--   synthesis_attempt_history  by finished_at
--
-- A month is a calendar month in UTC, as budgets and usage reckon one, so that a month's spend reads one
-- partition. Each table gets one partition per month from its oldest row through three months ahead, and a
-- DEFAULT partition that catches a row no month partition takes (see the ADR: it should stay empty).
--
-- A partitioned table's unique keys must hold its partition key, so each primary key gains its month column:
-- (id, occurred_at), (id, created_at), (id, finished_at). Identity ids come from one sequence per table and stay
-- unique; the ledger's ids are the calls' own, and every write of one call carries the same created_at, so a call
-- written twice is still one row.
--
-- Each table is converted in place, in this one transaction: the old table is renamed, its key and indexes
-- dropped (their names pass to the new table), the partitioned table created with the same columns, domains,
-- checks, foreign key, indexes, row-level security and grants, the rows copied with their ids, the identity
-- sequence carried on where the old one stood, any trigger of the old table created again after the copy (so the
-- copy fires none: the ledger's llm_usage_events_month_total of schema 14 already counted those rows), and the old
-- table dropped. Writers wait on the old table's lock meanwhile: the rewrite takes
-- about as long as copying the three tables.

-- The tables kept in months, and the column each is partitioned by: read by the functions below.
CREATE FUNCTION monthly_partitioned_tables() RETURNS TABLE (parent text, month_column text)
    LANGUAGE sql IMMUTABLE
AS $$
    VALUES ('conflict_events', 'occurred_at'),
           ('llm_usage_events', 'created_at'),
           ('synthesis_attempt_history', 'finished_at')
$$;

-- Makes sure :parent has a partition for the month starting on :month (a first of a month), named
-- <parent>_YYYY_MM, and returns its name when it made one, NULL when it existed.
--
-- The partition is made as a table of its own and then attached: ATTACH PARTITION takes a lock on the parent that
-- lets reads and writes go on, where CREATE TABLE ... PARTITION OF would stop them all for a moment and queue
-- behind any long read. Rows of that month that landed in the DEFAULT partition meanwhile are moved into it in the
-- same transaction, so the attach finds the default holding none of them.
CREATE FUNCTION create_month_partition(parent text, month date) RETURNS text
    LANGUAGE plpgsql
AS $$
DECLARE
    month_column text := (SELECT t.month_column FROM monthly_partitioned_tables() t WHERE t.parent = $1);
    partition    text := parent || '_' || to_char(month, 'YYYY_MM');
    fallback     text := parent || '_default';
    starts       timestamptz := month::timestamp AT TIME ZONE 'UTC';
    ends         timestamptz := (month + interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF month_column IS NULL THEN
        RAISE EXCEPTION '% is not kept in monthly partitions', parent;
    END IF;
    IF month <> date_trunc('month', month)::date THEN
        RAISE EXCEPTION 'a month partition starts on the first of a month, not on %', month;
    END IF;
    IF to_regclass(partition) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)',
                   partition, parent);
    IF to_regclass(fallback) IS NOT NULL THEN
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) '
                       'INSERT INTO %I SELECT * FROM moved', fallback, month_column, month_column, partition)
            USING starts, ends;
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   parent, partition, starts, ends);
    RETURN partition;
END
$$;

-- Makes sure every table has its partitions from the current month (UTC, by the database clock) through
-- :months_ahead months later, and one for every month that has rows in its DEFAULT partition; returns the
-- partitions it made. Safe to run at any time and from several places: a partition that exists is left alone.
-- It gives up rather than wait long behind a lock, and runs again on its next turn.
CREATE FUNCTION create_month_partitions_ahead(months_ahead integer) RETURNS SETOF text
    LANGUAGE plpgsql
    SET lock_timeout = '10s'
AS $$
DECLARE
    t       record;
    month   date;
    made    text;
    current date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
BEGIN
    FOR t IN SELECT * FROM monthly_partitioned_tables() LOOP
        FOR month IN
            SELECT (current + i * interval '1 month')::date FROM generate_series(0, months_ahead) i
            UNION
            SELECT m FROM months_in_default(t.parent, t.month_column) m
            ORDER BY 1
        LOOP
            made := create_month_partition(t.parent, month);
            IF made IS NOT NULL THEN
                RETURN NEXT made;
            END IF;
        END LOOP;
    END LOOP;
END
$$;

-- The months (UTC) of the rows in :parent's DEFAULT partition, which should have none.
CREATE FUNCTION months_in_default(parent text, month_column text) RETURNS SETOF date
    LANGUAGE plpgsql STABLE
AS $$
BEGIN
    IF to_regclass(parent || '_default') IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT DISTINCT date_trunc(''month'', %I AT TIME ZONE ''UTC'')::date FROM %I',
        month_column, parent || '_default');
END
$$;

-- Where each org's SIEM stream stood when retention last dropped events of it: the position (tx_id, id) of the
-- last event dropped, per org, and under the nil UUID for the platform-wide stream (every org's events and the
-- platform's own). A reader whose cursor is below its stream's mark has missed events that no longer exist, and
-- is told so instead of being handed the stream on past a silent gap.
CREATE TABLE event_stream_horizon (
    org_id uuid        PRIMARY KEY,
    tx_id  xid8        NOT NULL,
    id     bigint      NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE event_stream_horizon ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_stream_horizon FORCE ROW LEVEL SECURITY;
CREATE POLICY event_stream_horizon_org_isolation ON event_stream_horizon
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());
-- Read by the stream's readers; written only by retention, as the login role.
GRANT SELECT ON event_stream_horizon TO merge_synthesis_tenant, merge_synthesis_sweep;

-- Drops every month partition that ended more than :keep_months months ago (by the database clock), or with
-- :dry_run only names them; returns each partition with its month and its size on disk. The SIEM stream's marks
-- are moved past the events of a dropped month first. Refuses a retention under two months: the current month
-- and the one before are always kept whole.
CREATE FUNCTION drop_expired_month_partitions(keep_months integer, dry_run boolean)
    RETURNS TABLE (partition text, month date, bytes bigint)
    LANGUAGE plpgsql
    SET lock_timeout = '10s'
AS $$
DECLARE
    horizon timestamptz := now() - make_interval(months => keep_months);
    t       record;
BEGIN
    IF keep_months IS NULL OR keep_months < 2 THEN
        RAISE EXCEPTION 'a retention of % months is too short: keep at least 2', keep_months;
    END IF;
    FOR t IN SELECT * FROM monthly_partitioned_tables() LOOP
        -- The month is read from the partition's name, which create_month_partition gave it.
        FOR partition, month IN
            SELECT c.relname, to_date(right(c.relname, 7), 'YYYY_MM')
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = t.parent::regclass
              AND c.relname ~ ('^' || t.parent || '_[0-9]{4}_[0-9]{2}$')
            ORDER BY 2
        LOOP
            CONTINUE WHEN (month + interval '1 month')::timestamp AT TIME ZONE 'UTC' > horizon;
            bytes := pg_total_relation_size(partition::regclass);
            IF NOT dry_run THEN
                IF t.parent = 'conflict_events' THEN
                    PERFORM mark_event_stream_horizon(partition);
                END IF;
                EXECUTE format('DROP TABLE %I', partition);
            END IF;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;

-- Moves each stream's mark up to the last event of the partition about to be dropped.
CREATE FUNCTION mark_event_stream_horizon(partition text) RETURNS void
    LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO event_stream_horizon AS h (org_id, tx_id, id)
        SELECT org_id, tx_id, id FROM (
            SELECT DISTINCT ON (org_id) org_id, tx_id, id FROM %1$I
            WHERE org_id IS NOT NULL ORDER BY org_id, tx_id DESC, id DESC) last_of_each_org
        UNION ALL
        SELECT '00000000-0000-0000-0000-000000000000', tx_id, id FROM (
            SELECT tx_id, id FROM %1$I ORDER BY tx_id DESC, id DESC LIMIT 1) last_of_all
        ON CONFLICT (org_id) DO UPDATE SET tx_id = excluded.tx_id, id = excluded.id, set_at = now()
            WHERE (excluded.tx_id, excluded.id) > (h.tx_id, h.id)$q$, partition);
END
$$;

-- Partitions are made and dropped by the login role, which owns the tables; the service's roles never do.
REVOKE EXECUTE ON FUNCTION create_month_partition(text, date), create_month_partitions_ahead(integer),
    months_in_default(text, text), drop_expired_month_partitions(integer, boolean),
    mark_event_stream_horizon(text) FROM PUBLIC;

-- The triggers of a table about to be replaced, as statements that create them again on the new one.
CREATE TEMPORARY TABLE carried_triggers ON COMMIT DROP AS
SELECT pg_get_triggerdef(g.oid) AS definition
FROM pg_trigger g
WHERE g.tgrelid IN ('conflict_events'::regclass, 'llm_usage_events'::regclass,
                    'synthesis_attempt_history'::regclass)
  AND NOT g.tgisinternal;

-- The old tables step aside, leaving their names, their keys' and indexes' names and their sequences' names to
-- the new ones.
ALTER TABLE conflict_events RENAME TO conflict_events_unpartitioned;
ALTER TABLE conflict_events_unpartitioned DROP CONSTRAINT conflict_events_pkey;
DROP INDEX conflict_events_stream, conflict_events_org_stream, conflict_events_merges_by_time;
ALTER SEQUENCE conflict_events_id_seq RENAME TO conflict_events_unpartitioned_id_seq;

ALTER TABLE llm_usage_events RENAME TO llm_usage_events_unpartitioned;
ALTER TABLE llm_usage_events_unpartitioned DROP CONSTRAINT llm_usage_events_pkey;
DROP INDEX llm_usage_events_org_month, llm_usage_events_conflict, llm_usage_events_by_time;

ALTER TABLE synthesis_attempt_history RENAME TO synthesis_attempt_history_unpartitioned;
ALTER TABLE synthesis_attempt_history_unpartitioned DROP CONSTRAINT synthesis_attempt_history_pkey;
DROP INDEX synthesis_attempt_history_conflict, synthesis_attempt_history_by_time;
ALTER SEQUENCE synthesis_attempt_history_id_seq RENAME TO synthesis_attempt_history_unpartitioned_id_seq;

-- The SIEM stream: columns as V1, V7 and V13 left them.
CREATE TABLE conflict_events (
    id          bigint              GENERATED ALWAYS AS IDENTITY,
    tx_id       xid8                NOT NULL DEFAULT pg_current_xact_id(),
    org_id      uuid,
    conflict_id uuid                CONSTRAINT conflict_events_conflict_id_fkey REFERENCES policy_conflicts (id),
    event_type  conflict_event_type NOT NULL,
    occurred_at timestamptz         NOT NULL DEFAULT now(),
    details     jsonb               NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT conflict_events_pkey PRIMARY KEY (id, occurred_at)
) PARTITION BY RANGE (occurred_at);

CREATE INDEX conflict_events_stream ON conflict_events (tx_id, id);
CREATE INDEX conflict_events_org_stream ON conflict_events (org_id, tx_id, id);
CREATE INDEX conflict_events_merges_by_time ON conflict_events (occurred_at)
    WHERE event_type = 'merge_synthesized';

-- The usage ledger: columns and checks as V2 and V10 left them.
CREATE TABLE llm_usage_events (
    id                  uuid          NOT NULL,
    org_id              uuid          NOT NULL,
    conflict_id         uuid          NOT NULL
        CONSTRAINT llm_usage_events_conflict_id_fkey REFERENCES policy_conflicts (id),
    attempt             integer       NOT NULL CONSTRAINT llm_usage_events_attempt_check CHECK (attempt >= 1),
    pass                text          NOT NULL
        CONSTRAINT llm_usage_events_pass_check CHECK (pass IN ('primary', 'escalation')),
    provider            text          NOT NULL,
    model               text          NOT NULL,
    input_tokens        bigint        NOT NULL CONSTRAINT llm_usage_events_input_tokens_check CHECK (input_tokens >= 0),
    output_tokens       bigint        NOT NULL
        CONSTRAINT llm_usage_events_output_tokens_check CHECK (output_tokens >= 0),
    cache_read_tokens   bigint        NOT NULL DEFAULT 0
        CONSTRAINT llm_usage_events_cache_read_tokens_check CHECK (cache_read_tokens >= 0),
    cache_write_tokens  bigint        NOT NULL DEFAULT 0
        CONSTRAINT llm_usage_events_cache_write_tokens_check CHECK (cache_write_tokens >= 0),
    cost_usd            numeric(18,9) NOT NULL CONSTRAINT llm_usage_events_cost_usd_check CHECK (cost_usd >= 0),
    latency_ms          integer       NOT NULL CONSTRAINT llm_usage_events_latency_ms_check CHECK (latency_ms >= 0),
    outcome             text          NOT NULL
        CONSTRAINT llm_usage_events_outcome_check
            CHECK (outcome IN ('stored', 'discarded', 'failed', 'rate_limited', 'refused')),
    provider_request_id text,
    -- When the provider answered, as the worker carries it with the call: the same on every write of the call.
    created_at          timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT llm_usage_events_pkey PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

CREATE INDEX llm_usage_events_org_month ON llm_usage_events (org_id, created_at) INCLUDE (cost_usd);
CREATE INDEX llm_usage_events_conflict ON llm_usage_events (conflict_id, created_at);
CREATE INDEX llm_usage_events_by_time ON llm_usage_events (created_at) INCLUDE (cost_usd);

-- The attempt history: columns and checks as V2 and V11 left them.
CREATE TABLE synthesis_attempt_history (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    org_id      uuid        NOT NULL,
    conflict_id uuid        NOT NULL
        CONSTRAINT synthesis_attempt_history_conflict_id_fkey REFERENCES policy_conflicts (id),
    attempt     integer     NOT NULL CONSTRAINT synthesis_attempt_history_attempt_check CHECK (attempt >= 0),
    outcome     text        NOT NULL
        CONSTRAINT synthesis_attempt_history_outcome_check
            CHECK (outcome IN ('transient_failure', 'permanent_failure', 'deferred', 'requeued')),
    reason      text        NOT NULL,
    detail      text,
    finished_at timestamptz NOT NULL DEFAULT now(),
    not_before  timestamptz,
    CONSTRAINT synthesis_attempt_history_pkey PRIMARY KEY (id, finished_at)
) PARTITION BY RANGE (finished_at);

CREATE INDEX synthesis_attempt_history_conflict ON synthesis_attempt_history (conflict_id, id);
CREATE INDEX synthesis_attempt_history_by_time ON synthesis_attempt_history (finished_at);

-- Row-level security on each parent, as before; every read and write goes through the parent. The partitions
-- are granted to no service role, so none can read one round the parent's policy.
ALTER TABLE conflict_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflict_events FORCE ROW LEVEL SECURITY;
CREATE POLICY conflict_events_org_isolation ON conflict_events
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

ALTER TABLE llm_usage_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_usage_events FORCE ROW LEVEL SECURITY;
CREATE POLICY llm_usage_events_org_isolation ON llm_usage_events
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

ALTER TABLE synthesis_attempt_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE synthesis_attempt_history FORCE ROW LEVEL SECURITY;
CREATE POLICY synthesis_attempt_history_org_isolation ON synthesis_attempt_history
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

GRANT SELECT, INSERT ON conflict_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE conflict_events_id_seq TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT ON llm_usage_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT UPDATE (outcome) ON llm_usage_events TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT SELECT, INSERT ON synthesis_attempt_history TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE synthesis_attempt_history_id_seq TO merge_synthesis_tenant, merge_synthesis_sweep;

-- A DEFAULT partition each, then a month partition for every month the old rows cover and three ahead.
CREATE TABLE conflict_events_default PARTITION OF conflict_events DEFAULT;
CREATE TABLE llm_usage_events_default PARTITION OF llm_usage_events DEFAULT;
CREATE TABLE synthesis_attempt_history_default PARTITION OF synthesis_attempt_history DEFAULT;

SELECT create_month_partition(o.parent, m.month::date)
FROM (SELECT 'conflict_events' AS parent, min(occurred_at) AS oldest FROM conflict_events_unpartitioned
      UNION ALL
      SELECT 'llm_usage_events', min(created_at) FROM llm_usage_events_unpartitioned
      UNION ALL
      SELECT 'synthesis_attempt_history', min(finished_at) FROM synthesis_attempt_history_unpartitioned) o,
     -- least() passes over a NULL: an empty table starts at the current month.
     LATERAL generate_series(date_trunc('month', least(o.oldest, now()) AT TIME ZONE 'UTC'),
                             date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months',
                             interval '1 month') AS m(month);

-- The rows, with their ids.
INSERT INTO conflict_events (id, tx_id, org_id, conflict_id, event_type, occurred_at, details)
OVERRIDING SYSTEM VALUE
SELECT id, tx_id, org_id, conflict_id, event_type, occurred_at, details FROM conflict_events_unpartitioned;

INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens, output_tokens,
                              cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, outcome,
                              provider_request_id, created_at)
SELECT id, org_id, conflict_id, attempt, pass, provider, model, input_tokens, output_tokens, cache_read_tokens,
       cache_write_tokens, cost_usd, latency_ms, outcome, provider_request_id, created_at
FROM llm_usage_events_unpartitioned;

INSERT INTO synthesis_attempt_history (id, org_id, conflict_id, attempt, outcome, reason, detail, finished_at,
                                       not_before)
OVERRIDING SYSTEM VALUE
SELECT id, org_id, conflict_id, attempt, outcome, reason, detail, finished_at, not_before
FROM synthesis_attempt_history_unpartitioned;

-- Ids carry on where the old sequences stood (past any id a rolled-back insert took), never below a copied id.
SELECT setval('conflict_events_id_seq', last_value, is_called) FROM conflict_events_unpartitioned_id_seq;
SELECT setval('synthesis_attempt_history_id_seq', last_value, is_called)
FROM synthesis_attempt_history_unpartitioned_id_seq;

DROP TABLE conflict_events_unpartitioned, llm_usage_events_unpartitioned, synthesis_attempt_history_unpartitioned;

-- The old tables' own triggers, on the new ones, now that the copy is done (row triggers on a partitioned table
-- fire for the rows written through it).
DO $triggers$
DECLARE
    definition text;
BEGIN
    FOR definition IN SELECT c.definition FROM carried_triggers c LOOP
        EXECUTE definition;
    END LOOP;
END
$triggers$;

-- Autovacuum never analyzes a partitioned parent; the planner's estimates over the whole table start here.
ANALYZE conflict_events, llm_usage_events, synthesis_attempt_history;
