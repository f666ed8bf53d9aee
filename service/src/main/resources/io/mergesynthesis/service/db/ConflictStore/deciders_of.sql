-- Who acknowledged and who resolved each of :org's conflicts :ids (one page of the inbox), as JSON (schema 27).
SELECT id, acknowledged_by::text AS acknowledged_by, resolved_by::text AS resolved_by
FROM policy_conflicts WHERE org_id = :org AND id = ANY(:ids)
