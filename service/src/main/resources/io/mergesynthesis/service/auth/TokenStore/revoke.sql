-- Revokes token :id now, returning its org and prefix for the event; a token already revoked keeps its first
-- revocation and returns no row.
UPDATE api_tokens SET revoked_at = now() WHERE id = :id AND revoked_at IS NULL
RETURNING org_id, prefix, role, label
