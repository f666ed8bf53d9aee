-- Moves :org's conflict :id from open to acknowledged, by :actor; no row when it is not open, not the org's, or missing.
UPDATE policy_conflicts
   SET inbox_status = 'acknowledged', acknowledged_at = now(), acknowledged_by = CAST(:actor AS jsonb),
       updated_at = now()
 WHERE org_id = :org AND id = :id AND inbox_status = 'open'
RETURNING id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
       received_at, synthesis_state, attempts, last_failure_reason, failure_marker,
       suggested_merge::text AS suggested_merge, merge_check_version, synthesized_at, inbox_status,
       acknowledged_at, resolved_at, resolution, resolution_note
