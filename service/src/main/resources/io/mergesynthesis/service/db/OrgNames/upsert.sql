-- Gives :org the name :name (or a new one), returning the name it had before, if any.
WITH before AS (SELECT name FROM org_names WHERE org_id = :org)
INSERT INTO org_names AS o (org_id, name, named_at)
VALUES (:org, :name, :now)
ON CONFLICT (org_id) DO UPDATE SET name = excluded.name, named_at = excluded.named_at
RETURNING (SELECT name FROM before) AS previous
