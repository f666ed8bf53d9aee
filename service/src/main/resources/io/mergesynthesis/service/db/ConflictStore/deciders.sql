-- Who acknowledged and who resolved :org's conflict :id, as JSON (schema 27).
SELECT acknowledged_by::text AS acknowledged_by, resolved_by::text AS resolved_by
FROM policy_conflicts WHERE org_id = :org AND id = :id
