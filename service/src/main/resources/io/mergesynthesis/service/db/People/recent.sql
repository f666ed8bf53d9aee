-- The :limit people who signed in most lately, for the operator (schema 27).
SELECT subject, org_id, email, name, role, first_seen_at, last_seen_at
FROM people ORDER BY last_seen_at DESC, subject LIMIT :limit
