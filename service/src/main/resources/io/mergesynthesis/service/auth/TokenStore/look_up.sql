-- The token whose SHA-256 is :hash if it may be used now, and whether its last recorded use is a minute old or
-- more (or never recorded).
SELECT id, role, org_id, expires_at,
       last_used_at IS NULL OR last_used_at < now() - interval '1 minute' AS use_is_old
FROM api_tokens
WHERE token_sha256 = :hash AND revoked_at IS NULL
  AND (expires_at IS NULL OR expires_at > now())
