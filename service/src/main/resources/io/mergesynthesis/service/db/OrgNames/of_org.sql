-- The name of :org, if it has one; in a tenant transaction, only the org in scope's own.
SELECT name FROM org_names WHERE org_id = :org
