-- Opens a session known by :hash, the SHA-256 of its secret, for the token whose SHA-256 is :tokenHash, from :now
-- until :expires; false, writing nothing, when that token is unknown, revoked or expired (schema 22).
SELECT open_web_session(:hash, :tokenHash, :now, :expires)
