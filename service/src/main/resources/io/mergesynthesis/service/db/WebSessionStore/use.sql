-- The session whose secret hashes to :hash if it is live at :now and was used after :idleSince, with the role and
-- org of its token or of its person; records the use (schema 27).
SELECT token_id, token_label, role, org_id, viewing_org_id, expires_at, person_subject, person_email, person_name
FROM use_web_session(:hash, :now, :idleSince)
