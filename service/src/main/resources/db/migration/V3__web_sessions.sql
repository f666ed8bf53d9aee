-- merge-synthesis schema, version 3: sessions of the web inbox (see docs/adr/0020-web-inbox.md).
--
-- A person signs in by pasting a bearer token once; the browser then holds only a random session id in an
-- HttpOnly cookie, and this table keeps the SHA-256 of that id, never the id itself. Any replica can check a
-- session, and signing out (or revoking the token the session was opened with) ends it everywhere.
--
-- Like api_tokens, this table is read before any org is known and holds no tenant data (hashes, a token id,
-- times), so it has no row-level security; the role and org of a session are always those of its token.
CREATE TABLE web_sessions (
    id_sha256      bytea       PRIMARY KEY CHECK (length(id_sha256) = 32),
    token_id       uuid        NOT NULL REFERENCES api_tokens (id),
    -- For platform sessions only: the org whose inbox the operator chose to look at (read only).
    viewing_org_id uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    CONSTRAINT web_sessions_expiry_after_start CHECK (expires_at > created_at)
);

CREATE INDEX web_sessions_token ON web_sessions (token_id);

-- No DELETE, as everywhere: signing out stamps ended_at.
GRANT SELECT, INSERT, UPDATE ON web_sessions TO merge_synthesis_tenant, merge_synthesis_sweep;
