-- merge-synthesis schema, version 33: the shared token buckets keep what the deployment's last call of a model
-- was counted at its start under each limit (docs/adr/0076-a-replica-without-answers-charges-what-the-deployment-counted.md).
--
-- A call is charged before it is sent what its replica expects the provider to count: the input tokens of its
-- recent calls. A replica that has had no answer yet can only guess them from the request's size, and the guess
-- falls short of the provider's count; three replicas starting on a bucket near empty each sent calls the store let
-- go on the guess and the provider refused. Each settled call now writes what the provider counted of it at its
-- start, and a replica with no count of its own charges at least that (shared_token_counted).
--
-- And a call that finds too little while the calls in flight hold what it is missing is asked back in 50 ms, not
-- after the refill: they give back what they held beyond their cost as they end (shared_token_reserve).

ALTER TABLE shared_token_buckets ADD COLUMN counted_per_call double precision
    CONSTRAINT shared_token_buckets_counted_check CHECK (counted_per_call > 0);

COMMENT ON COLUMN shared_token_buckets.counted_per_call IS
    'What the last call the provider took was counted at its start under this limit: its input as counted, its '
    'max_tokens as held; null until a call was taken.';

-- As schema 30's, and then the calls the provider took record what it counted of them at their start: what they
-- held less what the statement does not show as taken.
CREATE OR REPLACE FUNCTION shared_token_settle(p_provider text, p_model text, p_kinds text[],
                                               p_held double precision[], p_returned double precision[],
                                               p_unseen double precision[], p_limits bigint[],
                                               p_remaining bigint[], p_levels_after double precision[],
                                               p_versions bigint[], p_in_flight_before double precision[],
                                               p_reserved_through double precision[], p_answered boolean,
                                               p_at timestamptz)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
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
           SET level = v_level, level_at = v_now, version = v_version,
               settled_total = b.settled_total + CASE WHEN v_end.level_after IS NULL THEN 0 ELSE v_end.held END
         WHERE b.provider = p_provider AND b.model = p_model AND b.kind = v_end.kind;
    END LOOP;
END
$$;

-- As schema 30's, but a call that finds too little while calls in flight hold what it needs is asked to come back
-- shortly (50 ms) instead of after the refill: an output limit's calls hold their max_tokens and give most of it
-- back as they end, and at the smallest tiers the refill of what one holds takes seconds.
CREATE OR REPLACE FUNCTION shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[],
                                     p_at timestamptz)
    RETURNS TABLE (kind text, granted boolean, wait_seconds double precision, level_after double precision,
                   version bigint, in_flight_before double precision, reserved_through double precision)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
DECLARE
    v_now  timestamptz := coalesce(p_at, clock_timestamp());
    v_wait double precision := 0;
    v_row  record;
    v_lvl  double precision;
    v_need double precision;
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
                IF v_lvl + (v_row.reserved_total - v_row.settled_total) >= least(v_row.held, v_row.stated_limit) THEN
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
                  b.reserved_total AS reserved, b.settled_total AS settled
    LOOP
        kind := v_row.k;
        granted := true;
        wait_seconds := 0;
        level_after := CASE WHEN v_row.lim IS NULL THEN NULL ELSE v_row.lvl END;
        version := v_row.ver;
        in_flight_before := CASE WHEN v_row.lim IS NULL THEN 0 ELSE v_row.reserved - v_row.held - v_row.settled END;
        reserved_through := CASE WHEN v_row.lim IS NULL THEN 0 ELSE v_row.reserved END;
        RETURN NEXT;
    END LOOP;
END
$$;

-- What the deployment's last call of a model that the provider took was counted at its start, under each limit
-- that has seen one.
CREATE FUNCTION shared_token_counted(p_provider text, p_model text)
    RETURNS TABLE (kind text, counted double precision)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    SELECT b.kind, b.counted_per_call
      FROM shared_token_buckets b
     WHERE b.provider = p_provider AND b.model = p_model AND b.counted_per_call IS NOT NULL
$$;

REVOKE ALL ON FUNCTION shared_token_counted(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION shared_token_counted(text, text) TO merge_synthesis_sweep, merge_synthesis_runtime;
