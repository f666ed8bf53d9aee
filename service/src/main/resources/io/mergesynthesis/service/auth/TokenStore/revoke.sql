-- Revokes token :id now; a token already revoked keeps its first revocation.
UPDATE api_tokens SET revoked_at = now() WHERE id = :id AND revoked_at IS NULL
