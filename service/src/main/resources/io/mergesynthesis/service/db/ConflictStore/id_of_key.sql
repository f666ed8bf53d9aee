-- The id of :org's conflict stored under dedup key :key.
SELECT id FROM policy_conflicts WHERE org_id = :org AND dedup_key = :key
