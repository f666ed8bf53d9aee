-- merge-synthesis schema, version 34: the calls in flight on a shared token bucket are counted per replica, and a
-- replica's holds end when its calls surely have (docs/adr/0078-holds-in-flight-end-with-their-calls.md).
--
-- What the calls in flight held was everything reserved less everything settled. A replica that died with calls
-- on their way never settled them, so the deployment counted them in flight for good: a call that found the
-- bucket short was asked back every 50 ms for the whole refill (schema 33), waiting on tokens nobody would give
-- back, and an answer's statement was read against holds that no longer existed. Each replica now keeps its holds
-- in a row of its own, which a reservation renews until twice the invoke timeout after it; past that every call
-- the row counted has ended, answered or not, and the row is deleted.

CREATE TABLE shared_token_holds (
    provider   text             NOT NULL,
    model      text             NOT NULL,
    kind       text             NOT NULL,
    -- One replica process: a random identity of its store, new at each start.
    holder     uuid             NOT NULL,
    -- What its calls in flight hold under the limit.
    held       double precision NOT NULL CONSTRAINT shared_token_holds_held_check CHECK (held >= 0),
    -- When the last call it reserved has surely ended.
    live_until timestamptz      NOT NULL,
    CONSTRAINT shared_token_holds_pkey PRIMARY KEY (provider, model, kind, holder),
    FOREIGN KEY (provider, model, kind) REFERENCES shared_token_buckets ON DELETE CASCADE
);

REVOKE ALL ON shared_token_holds FROM PUBLIC;

-- Everything settled was kept only to be taken from everything reserved.
ALTER TABLE shared_token_buckets DROP COLUMN settled_total;

COMMENT ON COLUMN shared_token_buckets.reserved_total IS
    'Everything ever reserved from the bucket: a call carries the total through itself, and its answer is read '
    'against the calls reserved after it.';

DROP FUNCTION shared_token_reserve(text, text, text[], double precision[], timestamptz);
DROP FUNCTION shared_token_settle(text, text, text[], double precision[], double precision[], double precision[],
                                  bigint[], bigint[], double precision[], bigint[], double precision[],
                                  double precision[], boolean, timestamptz);

-- As schema 33's, and a call granted adds what it holds to its replica's row of holds; the calls in flight are those
-- rows while they live, not everything reserved less everything settled.
CREATE FUNCTION shared_token_reserve(p_provider text, p_model text, p_kinds text[], p_held double precision[],
                                     p_holder uuid, p_hold_seconds double precision, p_at timestamptz)
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
$$;

-- As schema 33's, and a call that drew on a limit takes what it held off its replica's row of holds.
CREATE FUNCTION shared_token_settle(p_provider text, p_model text, p_kinds text[],
                                               p_held double precision[], p_returned double precision[],
                                               p_unseen double precision[], p_limits bigint[],
                                               p_remaining bigint[], p_levels_after double precision[],
                                               p_versions bigint[], p_in_flight_before double precision[],
                                               p_reserved_through double precision[], p_answered boolean,
                                               p_holder uuid, p_at timestamptz)
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
$$;

REVOKE ALL ON FUNCTION shared_token_reserve(text, text, text[], double precision[], uuid, double precision,
                                            timestamptz),
    shared_token_settle(text, text, text[], double precision[], double precision[], double precision[], bigint[],
                        bigint[], double precision[], bigint[], double precision[], double precision[], boolean,
                        uuid, timestamptz)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION shared_token_reserve(text, text, text[], double precision[], uuid, double precision,
                                               timestamptz),
    shared_token_settle(text, text, text[], double precision[], double precision[], double precision[], bigint[],
                        bigint[], double precision[], bigint[], double precision[], double precision[], boolean,
                        uuid, timestamptz)
    TO merge_synthesis_sweep, merge_synthesis_runtime;
