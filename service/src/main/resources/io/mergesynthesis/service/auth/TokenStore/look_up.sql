-- The token whose SHA-256 is :hash if it may be used now, and whether its last recorded use is a minute old or
-- more (or never recorded). The service roles read no token but through this function (schema 22).
SELECT id, role, org_id, expires_at, use_is_old, label FROM active_token(:hash)
