-- merge-synthesis schema, version 4: tokens people can manage.
--
--   prefix        the first characters of the secret (msk_ and 8 more), shown by `token list` and accepted by
--                 `token revoke`; 48 of the secret's 256 random bits, so it names a token without standing
--                 for it. Tokens minted before this version have none and are named by their id.
--   expires_at    optional; an expired token is refused like a revoked one.
--   last_used_at  when a request last presented the token, to the minute at best: the service writes it at
--                 most once a minute per token, so a busy caller does not cost a write per request.

ALTER TABLE api_tokens
    ADD COLUMN prefix       text CHECK (prefix IS NULL OR length(prefix) BETWEEN 8 AND 32),
    ADD COLUMN expires_at   timestamptz,
    ADD COLUMN last_used_at timestamptz;

CREATE INDEX api_tokens_prefix ON api_tokens (prefix) WHERE prefix IS NOT NULL;

-- The service roles may record use, and nothing else: minting and revoking stay with the login role.
GRANT UPDATE (last_used_at) ON api_tokens TO merge_synthesis_tenant;
