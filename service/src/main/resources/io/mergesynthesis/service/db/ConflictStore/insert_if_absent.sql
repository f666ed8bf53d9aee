-- Stores report :id of :org unless its dedup key :key is already stored for the org; returns the id only when
-- this statement stored it.
INSERT INTO policy_conflicts
    (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
VALUES (:id, :org, :key, :action, :target, CAST(:rules AS jsonb), :winner, :detectedAt)
ON CONFLICT (org_id, dedup_key) DO NOTHING
RETURNING id
