-- Opens a session known by :hash, the SHA-256 of its secret, for token :token, from :now until :expires.
INSERT INTO web_sessions (id_sha256, token_id, created_at, expires_at)
VALUES (:hash, :token, :now, :expires)
