-- Resolves :org's conflict :id as :resolution with :note, by :actor, unless it is resolved already; accepting the
-- suggestion also needs a suggested merge. No row when a condition fails.
UPDATE policy_conflicts
   SET inbox_status = 'resolved', resolution = :resolution, resolution_note = :note,
       resolved_at = now(), resolved_by = CAST(:actor AS jsonb), updated_at = now()
 WHERE org_id = :org AND id = :id AND inbox_status <> 'resolved'
   AND (:resolution <> 'accepted_suggestion' OR suggested_merge IS NOT NULL)
RETURNING id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
       received_at, synthesis_state, attempts, last_failure_reason, failure_marker,
       suggested_merge::text AS suggested_merge, merge_check_version, synthesized_at, inbox_status,
       acknowledged_at, resolved_at, resolution, resolution_note
