-- merge-synthesis schema, version 22: the service roles reach tokens and web sessions only by their hash
-- (docs/adr/0064-tenancy-and-tokens.md).
--
-- api_tokens and web_sessions have no row-level security: a token and a session are read before any org is known.
-- Until now the tenant and sweep roles could SELECT both tables whole, so any statement run as a tenant, under any
-- org's scope, could list every org's tokens (role, org, prefix, hash) and sessions. A policy cannot help here: the
-- look-up has no org to compare with, so a policy would have to let every row through.
--
-- So the service roles lose every direct privilege on both tables, and the six things the service does with them
-- go through functions of the schema's owner. Each takes the SHA-256 of a secret the caller holds and answers for
-- that one row: knowing a hash already means holding the token or the session, so nothing is learnt that the caller
-- did not have. search_path is fixed so that a caller's objects cannot stand in for the tables.
--
-- Minting, listing and revoking tokens stay with the login role, which owns the table.

REVOKE ALL ON api_tokens FROM merge_synthesis_tenant, merge_synthesis_sweep;
REVOKE ALL ON web_sessions FROM merge_synthesis_tenant, merge_synthesis_sweep;

-- The token whose SHA-256 is token_hash if it may be used now, and whether its last recorded use is a minute old
-- or more (or never recorded).
CREATE FUNCTION active_token(token_hash bytea)
    RETURNS TABLE (id uuid, role text, org_id uuid, expires_at timestamptz, use_is_old boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    SELECT t.id, t.role, t.org_id, t.expires_at,
           t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute'
      FROM api_tokens t
     WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
$$;

-- Records a use of the token whose SHA-256 is token_hash now, unless a replica recorded one in the last minute;
-- true when it did.
CREATE FUNCTION record_token_use(token_hash bytea) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE api_tokens SET last_used_at = now()
     WHERE token_sha256 = token_hash AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');
    RETURN FOUND;
END
$$;

-- Opens a session known by session_hash, the SHA-256 of its secret, for the token whose SHA-256 is token_hash,
-- from opened until expires. A token that is unknown, revoked or expired opens nothing: no row is written, and the
-- function answers false.
CREATE FUNCTION open_web_session(session_hash bytea, token_hash bytea, opened timestamptz, expires timestamptz)
    RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    WITH opened_session AS (
        INSERT INTO web_sessions (id_sha256, token_id, created_at, expires_at)
        SELECT session_hash, t.id, opened, expires
          FROM api_tokens t
         WHERE t.token_sha256 = token_hash AND t.revoked_at IS NULL
           AND (t.expires_at IS NULL OR t.expires_at > opened)
        RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM opened_session)
$$;

-- The session whose secret hashes to session_hash, with the role and org of its token, if neither the session nor
-- the token has ended, been revoked or expired at at_time.
CREATE FUNCTION live_web_session(session_hash bytea, at_time timestamptz)
    RETURNS TABLE (token_id uuid, role text, org_id uuid, viewing_org_id uuid, expires_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
    SELECT s.token_id, t.role, t.org_id, s.viewing_org_id, s.expires_at
      FROM web_sessions s JOIN api_tokens t ON t.id = s.token_id
     WHERE s.id_sha256 = session_hash AND s.ended_at IS NULL AND s.expires_at > at_time
       AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > at_time)
$$;

-- Ends the session known by session_hash at at_time; one already ended keeps its first end. True when it ended
-- one now.
CREATE FUNCTION end_web_session(session_hash bytea, at_time timestamptz) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE web_sessions SET ended_at = at_time WHERE id_sha256 = session_hash AND ended_at IS NULL;
    RETURN FOUND;
END
$$;

-- Sets the org (null for none) the platform session known by session_hash looks at; true when there is such a
-- session. Only a platform token's session looks at another org.
CREATE FUNCTION view_in_web_session(session_hash bytea, org uuid) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE web_sessions s SET viewing_org_id = org
      FROM api_tokens t
     WHERE s.id_sha256 = session_hash AND t.id = s.token_id AND t.role = 'platform';
    RETURN FOUND;
END
$$;

REVOKE ALL ON FUNCTION active_token(bytea), record_token_use(bytea),
    open_web_session(bytea, bytea, timestamptz, timestamptz), live_web_session(bytea, timestamptz),
    end_web_session(bytea, timestamptz), view_in_web_session(bytea, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION active_token(bytea), record_token_use(bytea),
    open_web_session(bytea, bytea, timestamptz, timestamptz), live_web_session(bytea, timestamptz),
    end_web_session(bytea, timestamptz), view_in_web_session(bytea, uuid)
    TO merge_synthesis_tenant, merge_synthesis_sweep;
