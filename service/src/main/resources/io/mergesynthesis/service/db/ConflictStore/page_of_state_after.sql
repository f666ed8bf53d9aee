-- Up to :limit of :org's conflicts in synthesis state :state, newest first,
-- strictly after the keyset position (:afterReceivedAt, :afterConflict).
-- One file per combination of the inbox's optional filters, so that each is planned for what it filters.
SELECT id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
       received_at, synthesis_state, attempts, last_failure_reason, failure_marker,
       suggested_merge::text AS suggested_merge, merge_check_version, synthesized_at, inbox_status,
       acknowledged_at, resolved_at, resolution, resolution_note
FROM policy_conflicts
WHERE org_id = :org
  AND synthesis_state = :state
  AND (received_at, id) < (:afterReceivedAt, :afterConflict)
ORDER BY received_at DESC, id DESC LIMIT :limit
