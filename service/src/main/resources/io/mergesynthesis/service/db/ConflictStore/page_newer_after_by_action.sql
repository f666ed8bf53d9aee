-- Up to :limit of :org's conflicts that pass the inbox's filters, oldest first, strictly newer than the keyset
-- position (:positionReceivedAt, :positionConflict).
-- Read for a filter by action (:action) when no other filter holds fewer conflicts: down the range of
-- conflicts_by_action (schema 20) that holds the org's conflicts of that action alone, in the page's order, each
-- conflict fetched by its id and checked against the other filters, stopping at :limit. The org's conflicts of
-- other actions are never read. A null filter does not filter.
-- The position is not optional here, so that it stays a condition of the index scan whatever plan the server
-- keeps for the statement.
SELECT c.id, c.org_id, c.dedup_key, c.action, c.target, c.rules::text AS rules, c.winner_policy_id, c.detected_at,
       c.received_at, c.synthesis_state, c.attempts, c.last_failure_reason, c.failure_marker,
       c.suggested_merge::text AS suggested_merge, c.merge_check_version, c.synthesized_at, c.inbox_status,
       c.acknowledged_at, c.resolved_at, c.resolution, c.resolution_note
FROM conflicts_by_action a
JOIN policy_conflicts c ON c.id = a.conflict_id
WHERE a.org_id = :org AND a.action = :action AND c.org_id = :org
  AND (CAST(:inbox AS text) IS NULL OR c.inbox_status = :inbox)
  AND (CAST(:state AS text) IS NULL OR c.synthesis_state = :state)
  AND (CAST(:prefix AS text) IS NULL OR starts_with(c.target, :prefix) OR starts_with(c.dedup_key, :prefix)
       OR jsonb_path_exists(c.rules, '$[*].policy_id ? (@ starts with $p)', jsonb_build_object('p', CAST(:prefix AS text))))
  AND (a.received_at, a.conflict_id) > (CAST(:positionReceivedAt AS timestamptz), CAST(:positionConflict AS uuid))
ORDER BY a.received_at ASC, a.conflict_id ASC LIMIT :limit
