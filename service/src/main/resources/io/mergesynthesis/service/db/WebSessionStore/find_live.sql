-- The session whose secret hashes to :hash, with the role and org of its token, if neither the session nor the
-- token has ended, been revoked or expired at :now (schema 22).
SELECT token_id, role, org_id, viewing_org_id, expires_at FROM live_web_session(:hash, :now)
