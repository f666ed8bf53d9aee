-- Every token but its secret and hash, newest first, revoked and expired ones included.
SELECT id, prefix, label, role, org_id, created_at, expires_at, last_used_at, revoked_at
FROM api_tokens ORDER BY created_at DESC, id
