-- The session whose secret hashes to :hash, with the role and org of its token, if neither the session nor the
-- token has ended, been revoked or expired at :now.
SELECT s.token_id, t.role, t.org_id, s.viewing_org_id, s.expires_at
  FROM web_sessions s JOIN api_tokens t ON t.id = s.token_id
 WHERE s.id_sha256 = :hash AND s.ended_at IS NULL AND s.expires_at > :now
   AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > :now)
