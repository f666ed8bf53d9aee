-- merge-synthesis schema, version 27: people sign in with the company's identity provider, a read-only role, and
-- tokens with labels (docs/adr/0071-people-sign-in-with-openid-connect.md).
--
--   org_viewer      reads what an org_admin reads of its org and changes nothing.
--   api_tokens      get a label, the name people know a token by, carried into every action the token makes.
--   people          who signed in through the identity provider: one row per subject, for the operator.
--   web_sessions    a session now belongs to a token (pasted) or to a person (signed in with the provider), and
--                   remembers when it was last used, so that it ends after a spell of idleness as well as at its
--                   absolute limit.
--
-- people holds no tenant data beyond the org a person belongs to, and like api_tokens it is written before any
-- org is known (at sign-in), so it has no row-level security: the service roles get no privilege on it and
-- record a sign-in through a function of the schema's owner; only the login role (the operator) lists it.

ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_role_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check
    CHECK (role IN ('org_admin', 'org_viewer', 'ingest', 'siem', 'platform'));
ALTER TABLE api_tokens ADD COLUMN label text CHECK (label IS NULL OR length(label) BETWEEN 1 AND 100);

CREATE TABLE people (
    subject       text        PRIMARY KEY CHECK (length(subject) BETWEEN 1 AND 255),
    -- Null for a platform operator, who belongs to no org.
    org_id        uuid,
    email         text        CHECK (email IS NULL OR length(email) <= 320),
    name          text        CHECK (name IS NULL OR length(name) <= 200),
    role          text        NOT NULL CHECK (role IN ('org_admin', 'org_viewer', 'platform')),
    first_seen_at timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL
);

CREATE INDEX people_by_org ON people (org_id, last_seen_at DESC);

REVOKE ALL ON people FROM PUBLIC;
GRANT SELECT ON people TO merge_synthesis_runtime;

ALTER TABLE web_sessions ALTER COLUMN token_id DROP NOT NULL;
ALTER TABLE web_sessions
    ADD COLUMN person_subject text REFERENCES people (subject),
    ADD COLUMN person_email   text,
    ADD COLUMN person_name    text,
    ADD COLUMN person_role    text CHECK (person_role IN ('org_admin', 'org_viewer', 'platform')),
    ADD COLUMN person_org_id  uuid,
    -- What the provider's end_session_endpoint is handed as id_token_hint at sign-out, so that it ends its own
    -- session without asking the person again. Signed by the provider and readable only through the functions
    -- below, by the hash of the session's secret.
    ADD COLUMN id_token       text,
    ADD COLUMN last_used_at   timestamptz;
UPDATE web_sessions SET last_used_at = created_at;
ALTER TABLE web_sessions ALTER COLUMN last_used_at SET NOT NULL;
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_token_or_person
    CHECK ((token_id IS NULL) <> (person_subject IS NULL));
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_person_has_role
    CHECK (person_subject IS NULL OR person_role IS NOT NULL);

-- Records that the person known to the provider as :subject signed in at at_time with this org, role, email and
-- name (the latest sign-in's claims win; the first sighting is kept).
CREATE FUNCTION record_person_sign_in(who text, org uuid, mail text, full_name text, person_role text,
                                      at_time timestamptz) RETURNS void
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    INSERT INTO people (subject, org_id, email, name, role, first_seen_at, last_seen_at)
    VALUES (who, org, mail, full_name, person_role, at_time, at_time)
    ON CONFLICT (subject) DO UPDATE
        SET org_id = EXCLUDED.org_id, email = EXCLUDED.email, name = EXCLUDED.name, role = EXCLUDED.role,
            last_seen_at = EXCLUDED.last_seen_at
$$;

-- Opens a session known by session_hash for the person :who, whose sign-in was recorded just before.
CREATE FUNCTION open_person_web_session(session_hash bytea, who text, mail text, full_name text,
                                        person_role text, org uuid, token text, opened timestamptz,
                                        expires timestamptz) RETURNS void
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    INSERT INTO web_sessions (id_sha256, person_subject, person_email, person_name, person_role, person_org_id,
                              id_token, created_at, expires_at, last_used_at)
    VALUES (session_hash, who, mail, full_name, person_role, org, token, opened, expires, opened)
$$;

-- As before, and a session of a token is used from the moment it opens.
CREATE OR REPLACE FUNCTION open_web_session(session_hash bytea, token_hash bytea, opened timestamptz,
                                            expires timestamptz)
    RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    WITH opened_session AS (
        INSERT INTO web_sessions (id_sha256, token_id, created_at, expires_at, last_used_at)
        SELECT session_hash, t.id, opened, expires, opened
          FROM api_tokens t
         WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
           AND (t.expires_at IS NULL OR t.expires_at > opened)
        RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM opened_session)
$$;

-- The session whose secret hashes to session_hash if it is live at at_time: not ended, not past its absolute
-- limit, used after idle_since, and (for a token's session) its token neither revoked nor expired. Its role and
-- org are its token's, or the person's as the provider stated them at sign-in. Records the use when the last
-- recorded one is a minute old or more, so that a busy page costs at most a write a minute.
DROP FUNCTION live_web_session(bytea, timestamptz);
CREATE FUNCTION use_web_session(session_hash bytea, at_time timestamptz, idle_since timestamptz)
    RETURNS TABLE (token_id uuid, token_label text, role text, org_id uuid, viewing_org_id uuid,
                   expires_at timestamptz, person_subject text, person_email text, person_name text)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
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
$$;

-- Ends the session known by session_hash at at_time and answers the ID token the provider gave at its sign-in
-- (null for a token's session, or one ended already), for the provider's own sign-out.
CREATE FUNCTION end_web_session_for_sign_out(session_hash bytea, at_time timestamptz) RETURNS text
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    UPDATE web_sessions SET ended_at = at_time
     WHERE id_sha256 = session_hash AND ended_at IS NULL
    RETURNING id_token
$$;

-- A platform session, of a token or of a person, chooses the org it looks at.
CREATE OR REPLACE FUNCTION view_in_web_session(session_hash bytea, org uuid) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE web_sessions s SET viewing_org_id = org
     WHERE s.id_sha256 = session_hash
       AND (s.person_role = 'platform'
            OR EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = s.token_id AND t.role = 'platform'));
    RETURN FOUND;
END
$$;

REVOKE ALL ON FUNCTION record_person_sign_in(text, uuid, text, text, text, timestamptz),
    open_person_web_session(bytea, text, text, text, text, uuid, text, timestamptz, timestamptz),
    use_web_session(bytea, timestamptz, timestamptz), end_web_session_for_sign_out(bytea, timestamptz)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION record_person_sign_in(text, uuid, text, text, text, timestamptz),
    open_person_web_session(bytea, text, text, text, text, uuid, text, timestamptz, timestamptz),
    use_web_session(bytea, timestamptz, timestamptz), end_web_session_for_sign_out(bytea, timestamptz)
    TO merge_synthesis_tenant, merge_synthesis_sweep;

-- A token's look-up answers its label as well, which every action the token makes records.
DROP FUNCTION active_token(bytea);
CREATE FUNCTION active_token(token_hash bytea)
    RETURNS TABLE (id uuid, role text, org_id uuid, expires_at timestamptz, use_is_old boolean, label text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    SELECT t.id, t.role, t.org_id, t.expires_at,
           t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute', t.label
      FROM api_tokens t
     WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
$$;
REVOKE ALL ON FUNCTION active_token(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION active_token(bytea) TO merge_synthesis_tenant, merge_synthesis_sweep;

-- Who acknowledged and who resolved a conflict, for its page and GET /v1/conflicts/{id}: {"type": "person", "id":
-- subject, "email", "name"} or {"type": "token", "id": token id, "name": label}. The events carry the same.
ALTER TABLE policy_conflicts
    ADD COLUMN acknowledged_by jsonb,
    ADD COLUMN resolved_by     jsonb;

-- A change to an org's synthesis settings (model, monthly budget) is an event too, naming who made it.
ALTER DOMAIN conflict_event_type DROP CONSTRAINT conflict_event_type_check;
ALTER DOMAIN conflict_event_type ADD CONSTRAINT conflict_event_type_check
    CHECK (VALUE IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                     'conflict_acknowledged', 'conflict_resolved', 'synthesis_requeued',
                     'org_named', 'token_minted', 'token_revoked', 'org_settings_changed'));
