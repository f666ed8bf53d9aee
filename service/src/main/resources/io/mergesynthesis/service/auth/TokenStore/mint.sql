-- Stores a token by its SHA-256 (:hash), prefix and label, valid for :seconds from now, or for good when that is
-- null.
INSERT INTO api_tokens (id, token_sha256, role, org_id, prefix, label, expires_at)
VALUES (:id, :hash, :role, :org, :prefix, :label, now() + make_interval(secs => :seconds))
RETURNING expires_at
