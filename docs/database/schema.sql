-- The schema of merge-synthesis as its migrations (service/src/main/resources/db/migration) leave a
-- fresh database, read from the server's catalogs and normalized: no owners, no server version, every
-- list sorted, the migrating login written <login>, and the month partitions of a table written once as
-- <table>_YYYY_MM. docs/database.md explains the tables; SchemaSnapshotTest checks this file.
--
-- Do not edit by hand. After changing a migration, write it afresh and commit the diff with the migration:
--   mvn -B -pl service -am test -Dtest=SchemaSnapshotTest -Dsurefire.failIfNoSpecifiedTests=false -Dschema.snapshot.write=true

-- Roles and the schema's grants

CREATE ROLE merge_synthesis_runtime NOLOGIN NOBYPASSRLS;

CREATE ROLE merge_synthesis_sweep NOLOGIN BYPASSRLS;

CREATE ROLE merge_synthesis_tenant NOLOGIN NOBYPASSRLS;

GRANT USAGE ON SCHEMA public TO PUBLIC;

GRANT USAGE ON SCHEMA public TO merge_synthesis_runtime;

GRANT USAGE ON SCHEMA public TO merge_synthesis_sweep;

GRANT USAGE ON SCHEMA public TO merge_synthesis_tenant;

-- Extensions

CREATE EXTENSION pg_trgm WITH SCHEMA public;

-- Domains and types

CREATE DOMAIN conflict_action AS text
    CONSTRAINT conflict_action_check CHECK ((VALUE = ANY (ARRAY['tool_call'::text, 'data_export'::text, 'knowledge_query'::text])));

CREATE DOMAIN conflict_event_type AS text
    CONSTRAINT conflict_event_type_check CHECK ((VALUE = ANY (ARRAY['conflict_detected'::text, 'merge_synthesized'::text, 'synthesis_failed_permanently'::text, 'conflict_acknowledged'::text, 'conflict_resolved'::text, 'synthesis_requeued'::text, 'org_named'::text, 'token_minted'::text, 'token_revoked'::text, 'org_settings_changed'::text, 'batch_cancel_requested'::text])));

CREATE DOMAIN failure_marker AS text
    CONSTRAINT failure_marker_check CHECK ((VALUE = 'synthesis_max_attempts_exceeded'::text));

CREATE DOMAIN failure_reason AS text
    CONSTRAINT failure_reason_check CHECK ((VALUE = ANY (ARRAY['set_org_id'::text, 'load_row'::text, 'router_resolve'::text, 'synthesizer'::text, 'invalid_json'::text, 'write_merge'::text, 'max_attempts_exceeded'::text, 'unknown'::text])));

CREATE DOMAIN inbox_status AS text
    CONSTRAINT inbox_status_check CHECK ((VALUE = ANY (ARRAY['open'::text, 'acknowledged'::text, 'resolved'::text])));

CREATE DOMAIN resolution AS text
    CONSTRAINT resolution_check CHECK ((VALUE = ANY (ARRAY['accepted_suggestion'::text, 'rejected_suggestion'::text, 'manual'::text])));

CREATE DOMAIN synthesis_state AS text
    CONSTRAINT synthesis_state_check CHECK ((VALUE = ANY (ARRAY['pending'::text, 'in_progress'::text, 'done'::text, 'max_attempts_exceeded'::text, 'waiting_budget'::text, 'not_needed'::text, 'batched'::text])));

-- Sequences

CREATE SEQUENCE conflict_events_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 NO CYCLE OWNED BY conflict_events.id;
GRANT USAGE ON SEQUENCE conflict_events_id_seq TO merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE conflict_events_id_seq TO merge_synthesis_tenant;

CREATE SEQUENCE synthesis_attempt_history_id_seq AS bigint START 1 INCREMENT 1 MINVALUE 1 MAXVALUE 9223372036854775807 CACHE 1 NO CYCLE OWNED BY synthesis_attempt_history.id;
GRANT USAGE ON SEQUENCE synthesis_attempt_history_id_seq TO merge_synthesis_sweep;
GRANT USAGE ON SEQUENCE synthesis_attempt_history_id_seq TO merge_synthesis_tenant;

-- Functions

CREATE OR REPLACE FUNCTION public.active_token(token_hash bytea)
 RETURNS TABLE(id uuid, role text, org_id uuid, expires_at timestamp with time zone, use_is_old boolean, label text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    SELECT t.id, t.role, t.org_id, t.expires_at,
           t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute', t.label
      FROM api_tokens t
     WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
$function$;
REVOKE EXECUTE ON FUNCTION active_token(token_hash bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION active_token(token_hash bytea) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION active_token(token_hash bytea) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.add_calls_to_org_month()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.add_conflicts_by_action()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO conflicts_by_action (org_id, action, received_at, conflict_id)
    SELECT org_id, action, received_at, id FROM added;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.conflicts_matching_search(search text, most integer)
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER ROWS 100
 SET search_path TO 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
DECLARE
    words   text[];
    word    text;
    rarest  text;
    fewest  bigint;
    holding bigint;
BEGIN
    IF length(search) < 3 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id() AND starts_with(lower(search_key), lower(search))
                      LIMIT most;
        RETURN;
    END IF;
    -- An org of few keys is read whole from the prefix index, never through the trigram index, whose lookups cost
    -- by how many keys of every org hold the search's trigrams: strpos is no index condition.
    IF (SELECT count(*) FROM (SELECT FROM conflict_search_keys WHERE org_id = current_org_id() LIMIT 5000) AS k)
       < 5000 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id() AND strpos(lower(search_key), lower(search)) > 0
                      LIMIT most;
        RETURN;
    END IF;
    -- pg_trgm's words: runs of letters and digits; only one of three characters or more has a trigram.
    SELECT array_agg(DISTINCT w) INTO words
      FROM regexp_split_to_table(lower(search), '[^[:alnum:]]+') AS w WHERE length(w) >= 3;
    IF cardinality(words) IS NULL OR cardinality(words) < 2 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id()
                        AND lower(search_key) LIKE '%' || replace(replace(replace(lower(search), '\', '\\'), '%', '\%'),
                                                                  '_', '\_') || '%'
                      LIMIT most;
        RETURN;
    END IF;
    FOREACH word IN ARRAY words LOOP
        SELECT count(*) INTO holding
          FROM conflict_search_keys TABLESAMPLE SYSTEM (0.05) REPEATABLE (25)
         WHERE strpos(lower(search_key), word) > 0;
        IF rarest IS NULL OR holding < fewest OR (holding = fewest AND length(word) > length(rarest)) THEN
            rarest := word;
            fewest := holding;
        END IF;
    END LOOP;
    RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                  WHERE org_id = current_org_id()
                    AND lower(search_key) LIKE '%' || rarest || '%'
                    AND strpos(lower(search_key), lower(search)) > 0
                  LIMIT most;
END
$function$;
REVOKE EXECUTE ON FUNCTION conflicts_matching_search(search text, most integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION conflicts_matching_search(search text, most integer) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION conflicts_matching_search(search text, most integer) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.count_conflict_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF OLD.org_id = NEW.org_id THEN
        INSERT INTO org_conflict_counts (org_id, into_state, into_status, out_state, out_status, n)
        VALUES (NEW.org_id, counted_state(NEW.synthesis_state), NEW.inbox_status,
                counted_state(OLD.synthesis_state), OLD.inbox_status, 1);
    ELSE
        INSERT INTO org_conflict_counts (org_id, out_state, out_status, n)
        VALUES (OLD.org_id, counted_state(OLD.synthesis_state), OLD.inbox_status, 1);
        INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
        VALUES (NEW.org_id, counted_state(NEW.synthesis_state), NEW.inbox_status, 1);
    END IF;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.count_conflicts_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
    SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
      FROM added
     GROUP BY org_id, counted_state(synthesis_state), inbox_status;
    INSERT INTO conflict_search_keys (org_id, search_key, conflict_id)
    SELECT DISTINCT a.org_id, left(k.k, 200), a.id
      FROM added a,
           LATERAL (SELECT a.target
                    UNION ALL SELECT a.dedup_key
                    UNION ALL SELECT r ->> 'policy_id' FROM jsonb_array_elements(a.rules) AS r) AS k (k)
     WHERE k.k IS NOT NULL;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.count_conflicts_removed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO org_conflict_counts (org_id, out_state, out_status, n)
    SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
      FROM removed
     GROUP BY org_id, counted_state(synthesis_state), inbox_status;
    DELETE FROM conflict_search_keys k
     USING removed r
     WHERE k.org_id = r.org_id AND k.conflict_id = r.id;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.counted_state(state synthesis_state)
 RETURNS synthesis_state
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT CASE WHEN state = 'in_progress' THEN 'pending' ELSE state END::synthesis_state $function$;

CREATE OR REPLACE FUNCTION public.create_month_partition(parent text, month date)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
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
$function$;
REVOKE EXECUTE ON FUNCTION create_month_partition(parent text, month date) FROM PUBLIC;

CREATE OR REPLACE FUNCTION public.create_month_partitions_ahead(months_ahead integer)
 RETURNS SETOF text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET lock_timeout TO '10s'
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
$function$;
REVOKE EXECUTE ON FUNCTION create_month_partitions_ahead(months_ahead integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION create_month_partitions_ahead(months_ahead integer) TO merge_synthesis_runtime;

CREATE OR REPLACE FUNCTION public.current_org_id()
 RETURNS uuid
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$ SELECT nullif(current_setting('app.org_id', true), '')::uuid $function$;
GRANT EXECUTE ON FUNCTION current_org_id() TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION current_org_id() TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.drop_expired_month_partitions(keep_months integer, dry_run boolean)
 RETURNS TABLE(partition text, month date, bytes bigint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET lock_timeout TO '10s'
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
$function$;
REVOKE EXECUTE ON FUNCTION drop_expired_month_partitions(keep_months integer, dry_run boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION drop_expired_month_partitions(keep_months integer, dry_run boolean) TO merge_synthesis_runtime;

CREATE OR REPLACE FUNCTION public.end_web_session(session_hash bytea, at_time timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE web_sessions SET ended_at = at_time WHERE id_sha256 = session_hash AND ended_at IS NULL;
    RETURN FOUND;
END
$function$;
REVOKE EXECUTE ON FUNCTION end_web_session(session_hash bytea, at_time timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION end_web_session(session_hash bytea, at_time timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION end_web_session(session_hash bytea, at_time timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.end_web_session_for_sign_out(session_hash bytea, at_time timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    UPDATE web_sessions SET ended_at = at_time
     WHERE id_sha256 = session_hash AND ended_at IS NULL
    RETURNING id_token
$function$;
REVOKE EXECUTE ON FUNCTION end_web_session_for_sign_out(session_hash bytea, at_time timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION end_web_session_for_sign_out(session_hash bytea, at_time timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION end_web_session_for_sign_out(session_hash bytea, at_time timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.forget_conflict_counts()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    DELETE FROM org_conflict_counts;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.forget_conflict_search_keys()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    DELETE FROM conflict_search_keys;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.forget_conflicts_by_action()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    DELETE FROM conflicts_by_action;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.ledger_month(at timestamp with time zone)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT date_trunc('month', at AT TIME ZONE 'UTC')::date $function$;

CREATE OR REPLACE FUNCTION public.mark_event_stream_horizon(partition text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
$function$;
REVOKE EXECUTE ON FUNCTION mark_event_stream_horizon(partition text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION public.monthly_partitioned_tables()
 RETURNS TABLE(parent text, month_column text)
 LANGUAGE sql
 IMMUTABLE
AS $function$
    VALUES ('conflict_events', 'occurred_at'),
           ('llm_usage_events', 'created_at'),
           ('synthesis_attempt_history', 'finished_at')
$function$;

CREATE OR REPLACE FUNCTION public.months_in_default(parent text, month_column text)
 RETURNS SETOF date
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
    IF to_regclass(parent || '_default') IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT DISTINCT date_trunc(''month'', %I AT TIME ZONE ''UTC'')::date FROM %I',
        month_column, parent || '_default');
END
$function$;
REVOKE EXECUTE ON FUNCTION months_in_default(parent text, month_column text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION public.move_conflict_by_action()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    DELETE FROM conflicts_by_action
     WHERE org_id = OLD.org_id AND action = OLD.action AND received_at = OLD.received_at AND conflict_id = OLD.id;
    INSERT INTO conflicts_by_action (org_id, action, received_at, conflict_id)
    VALUES (NEW.org_id, NEW.action, NEW.received_at, NEW.id);
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.open_person_web_session(session_hash bytea, who text, mail text, full_name text, person_role text, org uuid, token text, opened timestamp with time zone, expires timestamp with time zone)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    INSERT INTO web_sessions (id_sha256, person_subject, person_email, person_name, person_role, person_org_id,
                              id_token, created_at, expires_at, last_used_at)
    VALUES (session_hash, who, mail, full_name, person_role, org, token, opened, expires, opened)
$function$;
REVOKE EXECUTE ON FUNCTION open_person_web_session(session_hash bytea, who text, mail text, full_name text, person_role text, org uuid, token text, opened timestamp with time zone, expires timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION open_person_web_session(session_hash bytea, who text, mail text, full_name text, person_role text, org uuid, token text, opened timestamp with time zone, expires timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION open_person_web_session(session_hash bytea, who text, mail text, full_name text, person_role text, org uuid, token text, opened timestamp with time zone, expires timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.open_web_session(session_hash bytea, token_hash bytea, opened timestamp with time zone, expires timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    WITH opened_session AS (
        INSERT INTO web_sessions (id_sha256, token_id, created_at, expires_at, last_used_at)
        SELECT session_hash, t.id, opened, expires, opened
          FROM api_tokens t
         WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
           AND (t.expires_at IS NULL OR t.expires_at > opened)
        RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM opened_session)
$function$;
REVOKE EXECUTE ON FUNCTION open_web_session(session_hash bytea, token_hash bytea, opened timestamp with time zone, expires timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION open_web_session(session_hash bytea, token_hash bytea, opened timestamp with time zone, expires timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION open_web_session(session_hash bytea, token_hash bytea, opened timestamp with time zone, expires timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.org_month_spend(org uuid)
 RETURNS numeric
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE
AS $function$
BEGIN
    RETURN coalesce((SELECT s.cost_usd FROM org_spend_by_month s
                      WHERE s.org_id = org AND s.month = ledger_month(now())), 0);
END
$function$;

CREATE OR REPLACE FUNCTION public.record_person_sign_in(who text, org uuid, mail text, full_name text, person_role text, at_time timestamp with time zone)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    INSERT INTO people (subject, org_id, email, name, role, first_seen_at, last_seen_at)
    VALUES (who, org, mail, full_name, person_role, at_time, at_time)
    ON CONFLICT (subject) DO UPDATE
        SET org_id = EXCLUDED.org_id, email = EXCLUDED.email, name = EXCLUDED.name, role = EXCLUDED.role,
            last_seen_at = EXCLUDED.last_seen_at
$function$;
REVOKE EXECUTE ON FUNCTION record_person_sign_in(who text, org uuid, mail text, full_name text, person_role text, at_time timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION record_person_sign_in(who text, org uuid, mail text, full_name text, person_role text, at_time timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION record_person_sign_in(who text, org uuid, mail text, full_name text, person_role text, at_time timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.record_token_use(token_hash bytea)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE api_tokens SET last_used_at = now()
     WHERE token_sha256 = token_hash AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');
    RETURN FOUND;
END
$function$;
REVOKE EXECUTE ON FUNCTION record_token_use(token_hash bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION record_token_use(token_hash bytea) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION record_token_use(token_hash bytea) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.remove_conflicts_by_action()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    DELETE FROM conflicts_by_action a
     USING removed r
     WHERE a.org_id = r.org_id AND a.action = r.action AND a.received_at = r.received_at
       AND a.conflict_id = r.id;
    RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.search_matches_text(haystack text, search text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
    SELECT CASE WHEN length(search) < 3 THEN starts_with(lower(haystack), lower(search))
                ELSE strpos(lower(haystack), lower(search)) > 0 END
$function$;
GRANT EXECUTE ON FUNCTION search_matches_text(haystack text, search text) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION search_matches_text(haystack text, search text) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.shared_token_counted(p_provider text, p_model text)
 RETURNS TABLE(kind text, counted double precision)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
    SELECT b.kind, b.counted_per_call
      FROM shared_token_buckets b
     WHERE b.provider = p_provider AND b.model = p_model AND b.counted_per_call IS NOT NULL
$function$;
REVOKE EXECUTE ON FUNCTION shared_token_counted(p_provider text, p_model text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION shared_token_counted(p_provider text, p_model text) TO merge_synthesis_runtime;
GRANT EXECUTE ON FUNCTION shared_token_counted(p_provider text, p_model text) TO merge_synthesis_sweep;

CREATE OR REPLACE FUNCTION public.shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_holder uuid, p_hold_seconds double precision, p_at timestamp with time zone)
 RETURNS TABLE(kind text, granted boolean, wait_seconds double precision, level_after double precision, version bigint, in_flight_before double precision, reserved_through double precision)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    v_now  timestamptz := coalesce(p_at, clock_timestamp());
    v_wait double precision := 0;
    v_row  record;
    v_lvl  double precision;
    v_need double precision;
    v_live double precision;
BEGIN
    -- A limit never seen is one whose first call has not gone yet.
    INSERT INTO shared_token_buckets AS b (provider, model, kind, level_at, probe_until)
    SELECT p_provider, p_model, a.kind, v_now, '-infinity'
      FROM unnest(p_kinds) AS a(kind)
    ON CONFLICT DO NOTHING;

    -- Rows are locked in the order of their key, so that two calls of one model never wait for each other in a
    -- circle.
    FOR v_row IN
        SELECT b.*, a.held
          FROM shared_token_buckets b
          JOIN unnest(p_kinds, p_held) AS a(kind, held) ON a.kind = b.kind
         WHERE b.provider = p_provider AND b.model = p_model
         ORDER BY b.kind
           FOR UPDATE OF b
    LOOP
        IF v_row.stated_limit IS NULL THEN
            IF v_row.probe_until > v_now THEN
                -- The first call is on its way: its answer will say what the bucket holds.
                v_wait := greatest(v_wait, least(0.05, extract(epoch FROM v_row.probe_until - v_now)::float8));
            END IF;
        ELSE
            v_lvl := least(v_row.stated_limit, v_row.level
                + v_row.per_second * greatest(0, extract(epoch FROM v_now - v_row.level_at)::float8));
            IF v_lvl < least(v_row.held, v_row.stated_limit) THEN
                v_need := (least(v_row.held, v_row.stated_limit) - v_lvl) / v_row.per_second;
                SELECT coalesce(sum(h.held), 0) INTO v_live
                  FROM shared_token_holds h
                 WHERE h.provider = p_provider AND h.model = p_model AND h.kind = v_row.kind AND h.live_until > v_now;
                IF v_lvl + v_live >= least(v_row.held, v_row.stated_limit) THEN
                    -- Calls in flight hold enough to let this one go, and give back what they held beyond their
                    -- cost as they end, which may be long before the refill alone brings it: ask again shortly.
                    v_need := least(v_need, 0.05);
                END IF;
                v_wait := greatest(v_wait, v_need);
            END IF;
        END IF;
    END LOOP;

    IF v_wait > 0 THEN
        RETURN QUERY SELECT NULL::text, false, v_wait, NULL::float8, NULL::bigint, NULL::float8, NULL::float8;
        RETURN;
    END IF;

    -- Holds whose calls are surely over (their replica died, or lost its settle) count no more.
    DELETE FROM shared_token_holds h
     WHERE h.provider = p_provider AND h.model = p_model AND h.live_until <= v_now;

    FOR v_row IN
        UPDATE shared_token_buckets b
           SET probe_until = CASE WHEN b.stated_limit IS NULL AND b.probe_until IS NOT NULL
                                  THEN v_now + interval '30 seconds' ELSE b.probe_until END,
               level = CASE WHEN b.stated_limit IS NULL THEN b.level
                            ELSE least(b.stated_limit, b.level + b.per_second
                                       * greatest(0, extract(epoch FROM v_now - b.level_at)::float8)) - a.held END,
               level_at = CASE WHEN b.stated_limit IS NULL THEN b.level_at ELSE v_now END,
               reserved_total = CASE WHEN b.stated_limit IS NULL THEN b.reserved_total
                                     ELSE b.reserved_total + a.held END
          FROM unnest(p_kinds, p_held) AS a(kind, held)
         WHERE b.provider = p_provider AND b.model = p_model AND b.kind = a.kind
        RETURNING b.kind AS k, b.stated_limit AS lim, b.level AS lvl, b.version AS ver, a.held AS held,
                  b.reserved_total AS reserved
    LOOP
        v_live := 0;
        IF v_row.lim IS NOT NULL THEN
            SELECT coalesce(sum(h.held), 0) INTO v_live
              FROM shared_token_holds h
             WHERE h.provider = p_provider AND h.model = p_model AND h.kind = v_row.k;
            INSERT INTO shared_token_holds AS h (provider, model, kind, holder, held, live_until)
            VALUES (p_provider, p_model, v_row.k, p_holder, v_row.held,
                    v_now + p_hold_seconds * interval '1 second')
            ON CONFLICT ON CONSTRAINT shared_token_holds_pkey DO UPDATE
               SET held = h.held + excluded.held, live_until = greatest(h.live_until, excluded.live_until);
        END IF;
        kind := v_row.k;
        granted := true;
        wait_seconds := 0;
        level_after := CASE WHEN v_row.lim IS NULL THEN NULL ELSE v_row.lvl END;
        version := v_row.ver;
        in_flight_before := v_live;
        reserved_through := CASE WHEN v_row.lim IS NULL THEN 0 ELSE v_row.reserved END;
        RETURN NEXT;
    END LOOP;
END
$function$;
REVOKE EXECUTE ON FUNCTION shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_holder uuid, p_hold_seconds double precision, p_at timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_holder uuid, p_hold_seconds double precision, p_at timestamp with time zone) TO merge_synthesis_runtime;
GRANT EXECUTE ON FUNCTION shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_holder uuid, p_hold_seconds double precision, p_at timestamp with time zone) TO merge_synthesis_sweep;

CREATE OR REPLACE FUNCTION public.shared_token_settle(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_returned double precision[], p_unseen double precision[], p_limits bigint[], p_remaining bigint[], p_levels_after double precision[], p_versions bigint[], p_in_flight_before double precision[], p_reserved_through double precision[], p_answered boolean, p_holder uuid, p_at timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    v_now     timestamptz := coalesce(p_at, clock_timestamp());
    v_end     record;
    v_row     shared_token_buckets%ROWTYPE;
    v_half    double precision;
    v_high    double precision;
    v_low     double precision;
    v_level   double precision;
    v_version bigint;
BEGIN
    FOR v_end IN
        SELECT *
          FROM unnest(p_kinds, p_held, p_returned, p_unseen, p_limits, p_remaining, p_levels_after, p_versions,
                      p_in_flight_before, p_reserved_through)
               AS e(kind, held, returned, unseen, lim, remaining, level_after, ver, in_flight_before,
                    reserved_through)
         ORDER BY e.kind
    LOOP
        IF v_end.lim IS NOT NULL AND v_end.lim <= 0 THEN
            v_end.lim := NULL;
        END IF;
        SELECT * INTO v_row FROM shared_token_buckets b
         WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind
           FOR UPDATE;
        IF NOT FOUND THEN
            IF v_end.lim IS NULL THEN
                CONTINUE;
            END IF;
            INSERT INTO shared_token_buckets (provider, model, kind, level_at)
            VALUES (p_provider, p_model, v_end.kind, v_now)
            ON CONFLICT DO NOTHING;
            SELECT * INTO v_row FROM shared_token_buckets b
             WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind
               FOR UPDATE;
        END IF;
        IF v_end.level_after IS NOT NULL THEN
            UPDATE shared_token_holds h SET held = greatest(0, h.held - v_end.held)
             WHERE h.provider = p_provider AND h.model = p_model AND h.kind = v_end.kind AND h.holder = p_holder;
        END IF;
        IF p_answered AND v_end.held - v_end.unseen > 0 THEN
            UPDATE shared_token_buckets b SET counted_per_call = v_end.held - v_end.unseen
             WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
        END IF;
        v_half := CASE WHEN v_end.remaining % 1000 = 0 THEN 500 ELSE 0 END;

        IF v_row.stated_limit IS NULL OR (v_end.lim IS NOT NULL AND v_end.lim <> v_row.stated_limit) THEN
            IF v_end.lim IS NOT NULL THEN
                -- The first statement of the limit, or a new limit: the level is what it says, at its lowest.
                UPDATE shared_token_buckets b
                   SET stated_limit = v_end.lim,
                       per_second = v_end.lim / 60.0,
                       level = least(v_end.lim, greatest(0, v_end.remaining - v_half) - v_end.unseen + v_end.returned),
                       level_at = v_now,
                       version = b.version + 1,
                       probe_until = NULL
                 WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
            ELSIF p_answered THEN
                -- An answer that states nothing: the provider does not state this limit.
                UPDATE shared_token_buckets b SET probe_until = NULL
                 WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
            ELSIF v_row.probe_until IS NOT NULL THEN
                -- The first call got no answer: the next may try.
                UPDATE shared_token_buckets b SET probe_until = '-infinity'
                 WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
            END IF;
            CONTINUE;
        END IF;

        v_level := least(v_row.stated_limit, v_row.level
            + v_row.per_second * greatest(0, extract(epoch FROM v_now - v_row.level_at)::float8));
        v_version := v_row.version;
        IF v_end.lim IS NOT NULL AND v_end.level_after IS NOT NULL AND v_end.ver = v_row.version THEN
            -- Calls reserved after this one may have been counted before it, and calls reserved before it after
            -- it: the statement is read as wrong by at most those.
            v_high := v_end.remaining + v_half - v_end.unseen + (v_row.reserved_total - v_end.reserved_through);
            v_low := v_end.remaining - v_half - v_end.unseen - v_end.in_flight_before - v_end.held;
            IF v_end.level_after > v_high THEN
                -- Someone spent what the rows did not see: the provider's count is the truth.
                v_level := v_level - (v_end.level_after - v_high);
                v_version := v_version + 1;
            ELSIF v_end.level_after < v_low THEN
                -- More is there than the rows say, beyond what calls on their way explain: a replica that died
                -- holding tokens, say.
                v_level := least(v_row.stated_limit, v_level + (v_low - v_end.level_after));
                v_version := v_version + 1;
            END IF;
        END IF;
        IF v_end.level_after IS NOT NULL THEN
            v_level := least(v_row.stated_limit, v_level + v_end.returned);
        END IF;
        UPDATE shared_token_buckets b
           SET level = v_level, level_at = v_now, version = v_version
         WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
    END LOOP;
END
$function$;
REVOKE EXECUTE ON FUNCTION shared_token_settle(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_returned double precision[], p_unseen double precision[], p_limits bigint[], p_remaining bigint[], p_levels_after double precision[], p_versions bigint[], p_in_flight_before double precision[], p_reserved_through double precision[], p_answered boolean, p_holder uuid, p_at timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION shared_token_settle(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_returned double precision[], p_unseen double precision[], p_limits bigint[], p_remaining bigint[], p_levels_after double precision[], p_versions bigint[], p_in_flight_before double precision[], p_reserved_through double precision[], p_answered boolean, p_holder uuid, p_at timestamp with time zone) TO merge_synthesis_runtime;
GRANT EXECUTE ON FUNCTION shared_token_settle(p_provider text, p_model text, p_kinds text[], p_held double precision[], p_returned double precision[], p_unseen double precision[], p_limits bigint[], p_remaining bigint[], p_levels_after double precision[], p_versions bigint[], p_in_flight_before double precision[], p_reserved_through double precision[], p_answered boolean, p_holder uuid, p_at timestamp with time zone) TO merge_synthesis_sweep;

CREATE OR REPLACE FUNCTION public.use_web_session(session_hash bytea, at_time timestamp with time zone, idle_since timestamp with time zone)
 RETURNS TABLE(token_id uuid, token_label text, role text, org_id uuid, viewing_org_id uuid, expires_at timestamp with time zone, person_subject text, person_email text, person_name text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE web_sessions s SET last_used_at = at_time
     WHERE s.id_sha256 = session_hash AND s.ended_at IS NULL AND s.expires_at > at_time
       AND s.last_used_at > idle_since AND s.last_used_at < at_time - interval '1 minute';
    RETURN QUERY
    SELECT s.token_id, t.label, coalesce(t.role, s.person_role), coalesce(t.org_id, s.person_org_id),
           s.viewing_org_id, s.expires_at, s.person_subject, s.person_email, s.person_name
      FROM web_sessions s LEFT JOIN api_tokens t ON t.id = s.token_id
     WHERE s.id_sha256 = session_hash AND s.ended_at IS NULL AND s.expires_at > at_time
       AND s.last_used_at > idle_since
       AND (s.token_id IS NULL
            OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > at_time)));
END
$function$;
REVOKE EXECUTE ON FUNCTION use_web_session(session_hash bytea, at_time timestamp with time zone, idle_since timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION use_web_session(session_hash bytea, at_time timestamp with time zone, idle_since timestamp with time zone) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION use_web_session(session_hash bytea, at_time timestamp with time zone, idle_since timestamp with time zone) TO merge_synthesis_tenant;

CREATE OR REPLACE FUNCTION public.view_in_web_session(session_hash bytea, org uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE web_sessions s SET viewing_org_id = org
     WHERE s.id_sha256 = session_hash
       AND (s.person_role = 'platform'
            OR EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = s.token_id AND t.role = 'platform'));
    RETURN FOUND;
END
$function$;
REVOKE EXECUTE ON FUNCTION view_in_web_session(session_hash bytea, org uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION view_in_web_session(session_hash bytea, org uuid) TO merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION view_in_web_session(session_hash bytea, org uuid) TO merge_synthesis_tenant;

-- Tables

CREATE TABLE api_tokens (
    id uuid NOT NULL,
    token_sha256 bytea NOT NULL,
    role text NOT NULL,
    org_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    prefix text,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    label text
);
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_label_check CHECK (((label IS NULL) OR ((length(label) >= 1) AND (length(label) <= 100))));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_org_matches_role CHECK (((role = 'platform'::text) = (org_id IS NULL)));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (id);
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_prefix_check CHECK (((prefix IS NULL) OR ((length(prefix) >= 8) AND (length(prefix) <= 32))));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check CHECK ((role = ANY (ARRAY['org_admin'::text, 'org_viewer'::text, 'ingest'::text, 'siem'::text, 'platform'::text])));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_token_sha256_check CHECK ((length(token_sha256) = 32));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_token_sha256_key UNIQUE (token_sha256);
CREATE INDEX api_tokens_prefix ON public.api_tokens USING btree (prefix) WHERE (prefix IS NOT NULL);
GRANT INSERT, SELECT ON TABLE api_tokens TO merge_synthesis_runtime;
GRANT UPDATE (revoked_at) ON TABLE api_tokens TO merge_synthesis_runtime;

CREATE TABLE conflict_events (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    tx_id xid8 DEFAULT pg_current_xact_id() NOT NULL,
    org_id uuid,
    conflict_id uuid,
    event_type conflict_event_type NOT NULL,
    occurred_at timestamp with time zone DEFAULT now() NOT NULL,
    details jsonb DEFAULT '{}'::jsonb NOT NULL
) PARTITION BY RANGE (occurred_at);
ALTER TABLE conflict_events ADD CONSTRAINT conflict_events_conflict_id_fkey FOREIGN KEY (conflict_id) REFERENCES policy_conflicts(id);
ALTER TABLE conflict_events ADD CONSTRAINT conflict_events_pkey PRIMARY KEY (id, occurred_at);
CREATE INDEX conflict_events_merges_by_time ON ONLY public.conflict_events USING btree (occurred_at) WHERE ((event_type)::text = 'merge_synthesized'::text);
CREATE INDEX conflict_events_org_stream ON ONLY public.conflict_events USING btree (org_id, tx_id, id);
CREATE INDEX conflict_events_stream ON ONLY public.conflict_events USING btree (tx_id, id);
ALTER TABLE conflict_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflict_events FORCE ROW LEVEL SECURITY;
CREATE POLICY conflict_events_org_isolation ON conflict_events AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT ON TABLE conflict_events TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE conflict_events TO merge_synthesis_tenant;

CREATE TABLE conflict_search_keys (
    org_id uuid NOT NULL,
    search_key text NOT NULL,
    conflict_id uuid NOT NULL
);
CREATE INDEX conflict_search_keys_prefix ON public.conflict_search_keys USING btree (org_id, lower(search_key) text_pattern_ops) INCLUDE (conflict_id, search_key);
CREATE INDEX conflict_search_keys_trigrams ON public.conflict_search_keys USING gin (lower(search_key) gin_trgm_ops);
ALTER TABLE conflict_search_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY conflict_search_keys_org_isolation ON conflict_search_keys AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT ON TABLE conflict_search_keys TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE conflict_search_keys TO merge_synthesis_tenant;

CREATE TABLE conflicts_by_action (
    org_id uuid NOT NULL,
    action conflict_action NOT NULL,
    received_at timestamp with time zone NOT NULL,
    conflict_id uuid NOT NULL
);
CREATE INDEX conflicts_by_action_page ON public.conflicts_by_action USING btree (org_id, action, received_at DESC, conflict_id DESC);
ALTER TABLE conflicts_by_action ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflicts_by_action FORCE ROW LEVEL SECURITY;
CREATE POLICY conflicts_by_action_org_isolation ON conflicts_by_action AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT ON TABLE conflicts_by_action TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE conflicts_by_action TO merge_synthesis_tenant;

CREATE TABLE event_stream_horizon (
    org_id uuid NOT NULL,
    tx_id xid8 NOT NULL,
    id bigint NOT NULL,
    set_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE event_stream_horizon ADD CONSTRAINT event_stream_horizon_pkey PRIMARY KEY (org_id);
ALTER TABLE event_stream_horizon ENABLE ROW LEVEL SECURITY;
ALTER TABLE event_stream_horizon FORCE ROW LEVEL SECURITY;
CREATE POLICY event_stream_horizon_org_isolation ON event_stream_horizon AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT SELECT ON TABLE event_stream_horizon TO merge_synthesis_sweep;
GRANT SELECT ON TABLE event_stream_horizon TO merge_synthesis_tenant;

CREATE TABLE llm_batches (
    id uuid NOT NULL,
    org_id uuid NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    provider_batch_id text,
    state text NOT NULL,
    requests integer NOT NULL,
    reserved_cost_usd numeric DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sent_at timestamp with time zone,
    ended_at timestamp with time zone,
    poll_owner text,
    poll_until timestamp with time zone,
    next_poll_at timestamp with time zone DEFAULT now() NOT NULL,
    cancel_requested_at timestamp with time zone,
    cancel_reason text,
    cancel_sent_at timestamp with time zone,
    cost_usd numeric,
    input_tokens bigint DEFAULT 0 NOT NULL
);
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_cancel_reason_check CHECK ((cancel_reason = ANY (ARRAY['requested'::text, 'lane_changed'::text, 'budget_lowered'::text])));
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_cancel_whole CHECK (((cancel_requested_at IS NULL) = (cancel_reason IS NULL)));
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_pkey PRIMARY KEY (id);
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_provider_batch_id_key UNIQUE (provider, provider_batch_id);
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_requests_check CHECK ((requests >= 1));
ALTER TABLE llm_batches ADD CONSTRAINT llm_batches_state_check CHECK ((state = ANY (ARRAY['sending'::text, 'in_progress'::text, 'ended'::text, 'done'::text])));
CREATE INDEX llm_batches_newest ON public.llm_batches USING btree (created_at DESC);
CREATE INDEX llm_batches_to_poll ON public.llm_batches USING btree (next_poll_at) WHERE (state <> 'done'::text);
ALTER TABLE llm_batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_batches FORCE ROW LEVEL SECURITY;
CREATE POLICY llm_batches_org_isolation ON llm_batches AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT, UPDATE ON TABLE llm_batches TO merge_synthesis_sweep;
GRANT INSERT, SELECT, UPDATE ON TABLE llm_batches TO merge_synthesis_tenant;

CREATE TABLE llm_usage_events (
    id uuid NOT NULL,
    org_id uuid NOT NULL,
    conflict_id uuid NOT NULL,
    attempt integer NOT NULL,
    pass text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    input_tokens bigint NOT NULL,
    output_tokens bigint NOT NULL,
    cache_read_tokens bigint DEFAULT 0 NOT NULL,
    cache_write_tokens bigint DEFAULT 0 NOT NULL,
    cost_usd numeric(18,9) NOT NULL,
    latency_ms integer NOT NULL,
    outcome text NOT NULL,
    provider_request_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    lane text DEFAULT 'interactive'::text NOT NULL
) PARTITION BY RANGE (created_at);
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_attempt_check CHECK ((attempt >= 1));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_cache_read_tokens_check CHECK ((cache_read_tokens >= 0));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_cache_write_tokens_check CHECK ((cache_write_tokens >= 0));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_conflict_id_fkey FOREIGN KEY (conflict_id) REFERENCES policy_conflicts(id);
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_cost_usd_check CHECK ((cost_usd >= (0)::numeric));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_input_tokens_check CHECK ((input_tokens >= 0));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_lane_check CHECK ((lane = ANY (ARRAY['interactive'::text, 'batch'::text])));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_latency_ms_check CHECK ((latency_ms >= 0));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_outcome_check CHECK ((outcome = ANY (ARRAY['stored'::text, 'discarded'::text, 'failed'::text, 'rate_limited'::text, 'refused'::text])));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_output_tokens_check CHECK ((output_tokens >= 0));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_pass_check CHECK ((pass = ANY (ARRAY['primary'::text, 'escalation'::text])));
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_pkey PRIMARY KEY (id, created_at);
CREATE INDEX llm_usage_events_by_time ON ONLY public.llm_usage_events USING btree (created_at) INCLUDE (cost_usd);
CREATE INDEX llm_usage_events_conflict ON ONLY public.llm_usage_events USING btree (conflict_id, created_at);
CREATE INDEX llm_usage_events_org_month ON ONLY public.llm_usage_events USING btree (org_id, created_at) INCLUDE (cost_usd);
CREATE TRIGGER llm_usage_events_month_total AFTER INSERT ON public.llm_usage_events REFERENCING NEW TABLE AS recorded FOR EACH STATEMENT EXECUTE FUNCTION add_calls_to_org_month();
ALTER TABLE llm_usage_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_usage_events FORCE ROW LEVEL SECURITY;
CREATE POLICY llm_usage_events_org_isolation ON llm_usage_events AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT ON TABLE llm_usage_events TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE llm_usage_events TO merge_synthesis_tenant;
GRANT UPDATE (outcome) ON TABLE llm_usage_events TO merge_synthesis_sweep;
GRANT UPDATE (outcome) ON TABLE llm_usage_events TO merge_synthesis_tenant;

CREATE TABLE org_conflict_counts (
    org_id uuid NOT NULL,
    into_state synthesis_state,
    into_status inbox_status,
    out_state synthesis_state,
    out_status inbox_status,
    n bigint NOT NULL
);
ALTER TABLE org_conflict_counts ADD CONSTRAINT org_conflict_counts_counts_something CHECK (((into_state IS NOT NULL) OR (out_state IS NOT NULL)));
ALTER TABLE org_conflict_counts ADD CONSTRAINT org_conflict_counts_pairs_whole CHECK ((((into_state IS NULL) = (into_status IS NULL)) AND ((out_state IS NULL) = (out_status IS NULL))));
CREATE INDEX org_conflict_counts_org ON public.org_conflict_counts USING btree (org_id);
ALTER TABLE org_conflict_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_conflict_counts FORCE ROW LEVEL SECURITY;
CREATE POLICY org_conflict_counts_org_isolation ON org_conflict_counts AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT DELETE, INSERT, SELECT ON TABLE org_conflict_counts TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE org_conflict_counts TO merge_synthesis_tenant;

CREATE TABLE org_names (
    org_id uuid NOT NULL,
    name text NOT NULL,
    named_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE org_names ADD CONSTRAINT org_names_name_check CHECK ((((length(name) >= 1) AND (length(name) <= 80)) AND (name = btrim(name)) AND (name !~ '[[:cntrl:]]'::text)));
ALTER TABLE org_names ADD CONSTRAINT org_names_pkey PRIMARY KEY (org_id);
CREATE INDEX org_names_by_prefix ON public.org_names USING btree (lower(name) text_pattern_ops);
CREATE UNIQUE INDEX org_names_unique_name ON public.org_names USING btree (lower(name));
ALTER TABLE org_names ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_names FORCE ROW LEVEL SECURITY;
CREATE POLICY org_names_org_isolation ON org_names AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT, UPDATE ON TABLE org_names TO merge_synthesis_sweep;
GRANT SELECT ON TABLE org_names TO merge_synthesis_tenant;

CREATE TABLE org_spend_by_month (
    org_id uuid NOT NULL,
    month date NOT NULL,
    cost_usd numeric(18,9) NOT NULL,
    calls bigint NOT NULL
);
ALTER TABLE org_spend_by_month ADD CONSTRAINT org_spend_by_month_calls_check CHECK ((calls >= 0));
ALTER TABLE org_spend_by_month ADD CONSTRAINT org_spend_by_month_cost_usd_check CHECK ((cost_usd >= (0)::numeric));
ALTER TABLE org_spend_by_month ADD CONSTRAINT org_spend_by_month_pkey PRIMARY KEY (org_id, month);
ALTER TABLE org_spend_by_month ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_spend_by_month FORCE ROW LEVEL SECURITY;
CREATE POLICY org_spend_by_month_org_isolation ON org_spend_by_month AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT, UPDATE ON TABLE org_spend_by_month TO merge_synthesis_sweep;
GRANT INSERT, SELECT, UPDATE ON TABLE org_spend_by_month TO merge_synthesis_tenant;

CREATE TABLE org_synthesis_settings (
    org_id uuid NOT NULL,
    model text,
    monthly_budget_usd numeric(18,6),
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    weight integer DEFAULT 1 NOT NULL,
    lane text DEFAULT 'interactive'::text NOT NULL
);
ALTER TABLE org_synthesis_settings ADD CONSTRAINT org_synthesis_settings_lane_check CHECK ((lane = ANY (ARRAY['interactive'::text, 'batch'::text, 'auto'::text])));
ALTER TABLE org_synthesis_settings ADD CONSTRAINT org_synthesis_settings_monthly_budget_usd_check CHECK ((monthly_budget_usd >= (0)::numeric));
ALTER TABLE org_synthesis_settings ADD CONSTRAINT org_synthesis_settings_pkey PRIMARY KEY (org_id);
ALTER TABLE org_synthesis_settings ADD CONSTRAINT org_synthesis_settings_weight_check CHECK (((weight >= 1) AND (weight <= 1000)));
ALTER TABLE org_synthesis_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_synthesis_settings FORCE ROW LEVEL SECURITY;
CREATE POLICY org_synthesis_settings_org_isolation ON org_synthesis_settings AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT, UPDATE ON TABLE org_synthesis_settings TO merge_synthesis_sweep;
GRANT INSERT, SELECT, UPDATE ON TABLE org_synthesis_settings TO merge_synthesis_tenant;

CREATE TABLE org_usage_by_month (
    org_id uuid NOT NULL,
    month date NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    calls bigint NOT NULL,
    input_tokens bigint NOT NULL,
    output_tokens bigint NOT NULL,
    cache_read_tokens bigint NOT NULL,
    cache_write_tokens bigint NOT NULL,
    cost_usd numeric(18,9) NOT NULL,
    lane text DEFAULT 'interactive'::text NOT NULL
);
CREATE INDEX org_usage_by_month_org ON public.org_usage_by_month USING btree (org_id, month);
ALTER TABLE org_usage_by_month ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_usage_by_month FORCE ROW LEVEL SECURITY;
CREATE POLICY org_usage_by_month_org_isolation ON org_usage_by_month AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT DELETE, INSERT, SELECT ON TABLE org_usage_by_month TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE org_usage_by_month TO merge_synthesis_tenant;

CREATE TABLE people (
    subject text NOT NULL,
    org_id uuid,
    email text,
    name text,
    role text NOT NULL,
    first_seen_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL
);
ALTER TABLE people ADD CONSTRAINT people_email_check CHECK (((email IS NULL) OR (length(email) <= 320)));
ALTER TABLE people ADD CONSTRAINT people_name_check CHECK (((name IS NULL) OR (length(name) <= 200)));
ALTER TABLE people ADD CONSTRAINT people_pkey PRIMARY KEY (subject);
ALTER TABLE people ADD CONSTRAINT people_role_check CHECK ((role = ANY (ARRAY['org_admin'::text, 'org_viewer'::text, 'platform'::text])));
ALTER TABLE people ADD CONSTRAINT people_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 255)));
CREATE INDEX people_by_org ON public.people USING btree (org_id, last_seen_at DESC);
GRANT SELECT ON TABLE people TO merge_synthesis_runtime;

CREATE TABLE policy_conflicts (
    id uuid NOT NULL,
    org_id uuid NOT NULL,
    dedup_key text NOT NULL,
    action conflict_action NOT NULL,
    target text NOT NULL,
    rules jsonb NOT NULL,
    winner_policy_id text NOT NULL,
    detected_at timestamp with time zone NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    synthesis_state synthesis_state DEFAULT 'pending'::text NOT NULL,
    not_before timestamp with time zone DEFAULT now() NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    last_failure_reason failure_reason,
    failure_marker failure_marker,
    suggested_merge jsonb,
    synthesized_at timestamp with time zone,
    inbox_status inbox_status DEFAULT 'open'::text NOT NULL,
    acknowledged_at timestamp with time zone,
    resolved_at timestamp with time zone,
    resolution resolution,
    resolution_note text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    merge_check_version integer,
    claim_tag double precision DEFAULT 0 NOT NULL,
    acknowledged_by jsonb,
    resolved_by jsonb,
    lane text,
    batch_id uuid,
    batched_at timestamp with time zone
);
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_attempts_check CHECK ((attempts >= 0));
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_done_has_merge CHECK ((((synthesis_state)::text <> 'done'::text) OR (suggested_merge IS NOT NULL)));
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_lane_check CHECK ((lane = ANY (ARRAY['interactive'::text, 'batch'::text])));
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_marker_matches_state CHECK (((failure_marker IS NOT NULL) = ((synthesis_state)::text = 'max_attempts_exceeded'::text)));
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_org_dedup_key UNIQUE (org_id, dedup_key);
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_owner_only_in_progress CHECK (((lease_owner IS NULL) OR ((synthesis_state)::text = 'in_progress'::text)));
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_pkey PRIMARY KEY (id);
ALTER TABLE policy_conflicts ADD CONSTRAINT policy_conflicts_resolved_has_resolution CHECK ((((inbox_status)::text = 'resolved'::text) = (resolution IS NOT NULL)));
CREATE INDEX policy_conflicts_batch_lane_waiting ON public.policy_conflicts USING btree (org_id, not_before) WITH (deduplicate_items=off) WHERE (((synthesis_state)::text = 'pending'::text) AND (lane = 'batch'::text));
CREATE INDEX policy_conflicts_by_batch ON public.policy_conflicts USING btree (batch_id) WHERE ((synthesis_state)::text = 'batched'::text);
CREATE INDEX policy_conflicts_by_state_received ON public.policy_conflicts USING btree (org_id, synthesis_state, received_at DESC, id DESC) WHERE ((synthesis_state)::text <> ALL (ARRAY['done'::text, 'in_progress'::text]));
CREATE INDEX policy_conflicts_by_status_received ON public.policy_conflicts USING btree (org_id, inbox_status, received_at DESC, id DESC) WHERE ((inbox_status)::text <> 'open'::text);
CREATE INDEX policy_conflicts_claim_tags_by_org ON public.policy_conflicts USING btree (org_id, claim_tag) WHERE ((synthesis_state)::text = ANY (ARRAY['in_progress'::text, 'done'::text]));
CREATE INDEX policy_conflicts_inbox ON public.policy_conflicts USING btree (org_id, received_at DESC, id DESC);
CREATE INDEX policy_conflicts_leases_by_expiry ON public.policy_conflicts USING btree (lease_expires_at) WITH (deduplicate_items=off) WHERE ((synthesis_state)::text = 'in_progress'::text);
CREATE INDEX policy_conflicts_marked ON public.policy_conflicts USING btree (org_id, last_failure_reason) WHERE ((synthesis_state)::text = 'max_attempts_exceeded'::text);
CREATE INDEX policy_conflicts_marked_newest ON public.policy_conflicts USING btree (updated_at DESC, id DESC) WHERE ((synthesis_state)::text = 'max_attempts_exceeded'::text);
CREATE INDEX policy_conflicts_pending_by_org ON public.policy_conflicts USING btree (org_id, not_before) WITH (deduplicate_items=off) WHERE ((synthesis_state)::text = 'pending'::text);
CREATE INDEX policy_conflicts_waiting_budget ON public.policy_conflicts USING btree (org_id) WHERE ((synthesis_state)::text = 'waiting_budget'::text);
CREATE TRIGGER policy_conflicts_added AFTER INSERT ON public.policy_conflicts REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_conflicts_added();
CREATE TRIGGER policy_conflicts_by_action_added AFTER INSERT ON public.policy_conflicts REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION add_conflicts_by_action();
CREATE TRIGGER policy_conflicts_by_action_moved AFTER UPDATE OF org_id, action, received_at ON public.policy_conflicts FOR EACH ROW WHEN (((old.org_id IS DISTINCT FROM new.org_id) OR ((old.action)::text IS DISTINCT FROM (new.action)::text) OR (old.received_at IS DISTINCT FROM new.received_at))) EXECUTE FUNCTION move_conflict_by_action();
CREATE TRIGGER policy_conflicts_by_action_removed AFTER DELETE ON public.policy_conflicts REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION remove_conflicts_by_action();
CREATE TRIGGER policy_conflicts_by_action_truncate AFTER TRUNCATE ON public.policy_conflicts FOR EACH STATEMENT EXECUTE FUNCTION forget_conflicts_by_action();
CREATE TRIGGER policy_conflicts_count_truncate AFTER TRUNCATE ON public.policy_conflicts FOR EACH STATEMENT EXECUTE FUNCTION forget_conflict_counts();
CREATE TRIGGER policy_conflicts_count_update AFTER UPDATE OF org_id, synthesis_state, inbox_status ON public.policy_conflicts FOR EACH ROW WHEN ((((
        CASE
            WHEN ((old.synthesis_state)::text = 'in_progress'::text) THEN 'pending'::text
            ELSE (old.synthesis_state)::text
        END IS DISTINCT FROM
        CASE
            WHEN ((new.synthesis_state)::text = 'in_progress'::text) THEN 'pending'::text
            ELSE (new.synthesis_state)::text
        END) OR ((old.inbox_status)::text IS DISTINCT FROM (new.inbox_status)::text) OR (old.org_id IS DISTINCT FROM new.org_id)) AND (NOT (((old.synthesis_state)::text = 'in_progress'::text) AND ((new.synthesis_state)::text = 'done'::text) AND ((old.inbox_status)::text = (new.inbox_status)::text) AND (old.org_id = new.org_id))))) EXECUTE FUNCTION count_conflict_change();
CREATE TRIGGER policy_conflicts_removed AFTER DELETE ON public.policy_conflicts REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_conflicts_removed();
CREATE TRIGGER policy_conflicts_search_keys_truncate AFTER TRUNCATE ON public.policy_conflicts FOR EACH STATEMENT EXECUTE FUNCTION forget_conflict_search_keys();
ALTER TABLE policy_conflicts ENABLE ROW LEVEL SECURITY;
ALTER TABLE policy_conflicts FORCE ROW LEVEL SECURITY;
CREATE POLICY policy_conflicts_org_isolation ON policy_conflicts AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT, UPDATE ON TABLE policy_conflicts TO merge_synthesis_sweep;
GRANT INSERT, SELECT, UPDATE ON TABLE policy_conflicts TO merge_synthesis_tenant;

CREATE TABLE replica_heartbeats (
    replica_id text NOT NULL,
    host text NOT NULL,
    version text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    interval_ms integer NOT NULL,
    workers integer NOT NULL,
    in_flight integer NOT NULL,
    last_claim_at timestamp with time zone,
    beat_at timestamp with time zone NOT NULL,
    stopped_at timestamp with time zone,
    providers jsonb DEFAULT '{}'::jsonb NOT NULL
);
ALTER TABLE replica_heartbeats ADD CONSTRAINT replica_heartbeats_in_flight_check CHECK ((in_flight >= 0));
ALTER TABLE replica_heartbeats ADD CONSTRAINT replica_heartbeats_interval_ms_check CHECK ((interval_ms > 0));
ALTER TABLE replica_heartbeats ADD CONSTRAINT replica_heartbeats_pkey PRIMARY KEY (replica_id);
ALTER TABLE replica_heartbeats ADD CONSTRAINT replica_heartbeats_workers_check CHECK ((workers >= 0));
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE replica_heartbeats TO merge_synthesis_sweep;

CREATE TABLE shared_token_buckets (
    provider text NOT NULL,
    model text NOT NULL,
    kind text NOT NULL,
    stated_limit bigint,
    per_second double precision DEFAULT 0 NOT NULL,
    level double precision DEFAULT 0 NOT NULL,
    level_at timestamp with time zone NOT NULL,
    version bigint DEFAULT 0 NOT NULL,
    probe_until timestamp with time zone,
    reserved_total double precision DEFAULT 0 NOT NULL,
    counted_per_call double precision
);
COMMENT ON COLUMN shared_token_buckets.reserved_total IS 'Everything ever reserved from the bucket: a call carries the total through itself, and its answer is read against the calls reserved after it.';
COMMENT ON COLUMN shared_token_buckets.counted_per_call IS 'What the last call the provider took was counted at its start under this limit: its input as counted, its max_tokens as held; null until a call was taken.';
ALTER TABLE shared_token_buckets ADD CONSTRAINT shared_token_buckets_counted_check CHECK ((counted_per_call > (0)::double precision));
ALTER TABLE shared_token_buckets ADD CONSTRAINT shared_token_buckets_kind_check CHECK ((kind = ANY (ARRAY['input_tokens'::text, 'output_tokens'::text, 'tokens'::text])));
ALTER TABLE shared_token_buckets ADD CONSTRAINT shared_token_buckets_limit_check CHECK ((stated_limit > 0));
ALTER TABLE shared_token_buckets ADD CONSTRAINT shared_token_buckets_pkey PRIMARY KEY (provider, model, kind);

CREATE TABLE shared_token_holds (
    provider text NOT NULL,
    model text NOT NULL,
    kind text NOT NULL,
    holder uuid NOT NULL,
    held double precision NOT NULL,
    live_until timestamp with time zone NOT NULL
);
ALTER TABLE shared_token_holds ADD CONSTRAINT shared_token_holds_held_check CHECK ((held >= (0)::double precision));
ALTER TABLE shared_token_holds ADD CONSTRAINT shared_token_holds_pkey PRIMARY KEY (provider, model, kind, holder);
ALTER TABLE shared_token_holds ADD CONSTRAINT shared_token_holds_provider_model_kind_fkey FOREIGN KEY (provider, model, kind) REFERENCES shared_token_buckets(provider, model, kind) ON DELETE CASCADE;

CREATE TABLE synthesis_attempt_history (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    org_id uuid NOT NULL,
    conflict_id uuid NOT NULL,
    attempt integer NOT NULL,
    outcome text NOT NULL,
    reason text NOT NULL,
    detail text,
    finished_at timestamp with time zone DEFAULT now() NOT NULL,
    not_before timestamp with time zone
) PARTITION BY RANGE (finished_at);
ALTER TABLE synthesis_attempt_history ADD CONSTRAINT synthesis_attempt_history_attempt_check CHECK ((attempt >= 0));
ALTER TABLE synthesis_attempt_history ADD CONSTRAINT synthesis_attempt_history_conflict_id_fkey FOREIGN KEY (conflict_id) REFERENCES policy_conflicts(id);
ALTER TABLE synthesis_attempt_history ADD CONSTRAINT synthesis_attempt_history_outcome_check CHECK ((outcome = ANY (ARRAY['transient_failure'::text, 'permanent_failure'::text, 'deferred'::text, 'requeued'::text])));
ALTER TABLE synthesis_attempt_history ADD CONSTRAINT synthesis_attempt_history_pkey PRIMARY KEY (id, finished_at);
CREATE INDEX synthesis_attempt_history_by_time ON ONLY public.synthesis_attempt_history USING btree (finished_at);
CREATE INDEX synthesis_attempt_history_conflict ON ONLY public.synthesis_attempt_history USING btree (conflict_id, id);
ALTER TABLE synthesis_attempt_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE synthesis_attempt_history FORCE ROW LEVEL SECURITY;
CREATE POLICY synthesis_attempt_history_org_isolation ON synthesis_attempt_history AS PERMISSIVE FOR ALL TO public USING ((org_id = current_org_id())) WITH CHECK ((org_id = current_org_id()));
GRANT INSERT, SELECT ON TABLE synthesis_attempt_history TO merge_synthesis_sweep;
GRANT INSERT, SELECT ON TABLE synthesis_attempt_history TO merge_synthesis_tenant;

CREATE TABLE web_sessions (
    id_sha256 bytea NOT NULL,
    token_id uuid,
    viewing_org_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    person_subject text,
    person_email text,
    person_name text,
    person_role text,
    person_org_id uuid,
    id_token text,
    last_used_at timestamp with time zone NOT NULL
);
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_expiry_after_start CHECK ((expires_at > created_at));
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_id_sha256_check CHECK ((length(id_sha256) = 32));
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_person_has_role CHECK (((person_subject IS NULL) OR (person_role IS NOT NULL)));
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_person_role_check CHECK ((person_role = ANY (ARRAY['org_admin'::text, 'org_viewer'::text, 'platform'::text])));
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_person_subject_fkey FOREIGN KEY (person_subject) REFERENCES people(subject);
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_pkey PRIMARY KEY (id_sha256);
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_token_id_fkey FOREIGN KEY (token_id) REFERENCES api_tokens(id);
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_token_or_person CHECK (((token_id IS NULL) <> (person_subject IS NULL)));
CREATE INDEX web_sessions_token ON public.web_sessions USING btree (token_id);

-- Views

CREATE VIEW org_conflict_totals WITH (security_invoker=true) AS
 SELECT org_id,
    synthesis_state,
    inbox_status,
    sum(n)::bigint AS n
   FROM ( SELECT org_conflict_counts.org_id,
            org_conflict_counts.into_state AS synthesis_state,
            org_conflict_counts.into_status AS inbox_status,
            org_conflict_counts.n
           FROM org_conflict_counts
          WHERE org_conflict_counts.into_state IS NOT NULL
        UNION ALL
         SELECT org_conflict_counts.org_id,
            org_conflict_counts.out_state,
            org_conflict_counts.out_status,
            - org_conflict_counts.n
           FROM org_conflict_counts
          WHERE org_conflict_counts.out_state IS NOT NULL) moves
  GROUP BY org_id, synthesis_state, inbox_status
 HAVING sum(n) <> 0::numeric;
GRANT SELECT ON TABLE org_conflict_totals TO merge_synthesis_sweep;
GRANT SELECT ON TABLE org_conflict_totals TO merge_synthesis_tenant;

-- Partitions

CREATE TABLE conflict_events_YYYY_MM PARTITION OF conflict_events FOR VALUES FROM ('<month>') TO ('<month>');

CREATE TABLE conflict_events_default PARTITION OF conflict_events DEFAULT;

CREATE TABLE llm_usage_events_YYYY_MM PARTITION OF llm_usage_events FOR VALUES FROM ('<month>') TO ('<month>');

CREATE TABLE llm_usage_events_default PARTITION OF llm_usage_events DEFAULT;

CREATE TABLE synthesis_attempt_history_YYYY_MM PARTITION OF synthesis_attempt_history FOR VALUES FROM ('<month>') TO ('<month>');

CREATE TABLE synthesis_attempt_history_default PARTITION OF synthesis_attempt_history DEFAULT;
