-- Opens a session known by :hash, the SHA-256 of its secret, for the person :subject, from :now until :expires
-- (schema 27).
SELECT open_person_web_session(:hash, :subject, :email, :name, :role, :org, :idToken, :now, :expires)
