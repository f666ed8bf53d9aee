-- :org's conflicts of action :action that pass the inbox's other filters (a null filter does not filter), read
-- from conflicts_by_action (schema 20) and fetched by id: the body of the four pages by action, which each add
-- their position and order.
SELECT c.id, c.org_id, c.dedup_key, c.action, c.target, c.rules::text AS rules, c.winner_policy_id, c.detected_at,
       c.received_at, c.synthesis_state, c.attempts, c.last_failure_reason, c.failure_marker,
       c.suggested_merge::text AS suggested_merge, c.merge_check_version, c.synthesized_at, c.inbox_status,
       c.acknowledged_at, c.resolved_at, c.resolution, c.resolution_note
FROM conflicts_by_action a
JOIN policy_conflicts c ON c.id = a.conflict_id
WHERE a.org_id = :org AND a.action = :action AND c.org_id = :org
  AND (CAST(:inbox AS text) IS NULL OR c.inbox_status = :inbox)
  AND (NOT CAST(:unresolvedOnly AS boolean) OR c.inbox_status <> 'resolved')
  AND (CAST(:state AS text) IS NULL OR c.synthesis_state = :state)
  AND (CAST(:prefix AS text) IS NULL OR search_matches_text(c.target, :prefix)
       OR search_matches_text(c.dedup_key, :prefix)
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(c.rules) AS r WHERE search_matches_text(r ->> 'policy_id', :prefix)))
