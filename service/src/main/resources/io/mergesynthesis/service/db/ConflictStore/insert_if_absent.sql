-- Stores report :id of :org unless its dedup key :key is already stored for the org; returns the id only when
-- this statement stored it. :lane is batch for a report sent to the batch lane whatever its org's lane, null to
-- follow the org's.
INSERT INTO policy_conflicts
    (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, lane)
VALUES (:id, :org, :key, :action, :target, CAST(:rules AS jsonb), :winner, :detectedAt, CAST(:lane AS text))
ON CONFLICT (org_id, dedup_key) DO NOTHING
RETURNING id
