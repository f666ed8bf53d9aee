-- Up to :limit of :org's conflicts that pass the inbox's filters, newest first, strictly older than the keyset
-- position (:positionReceivedAt, :positionConflict). The position is not optional here, so that it stays a
-- condition of the index scan whatever plan the server keeps for the statement.
-- A null filter does not filter. :prefix (the search) is matched by search_matches_text in the target, the
-- engine's key and any rule's policy id. The page is read down the inbox index (org_id, received_at DESC, id DESC) from the position,
-- stopping at :limit; a filter is checked on the rows the index passes (InboxSearchTest checks the plans).
-- A search that few conflicts match is read by the _by_key statement beside this one instead.
SELECT id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
       received_at, synthesis_state, attempts, last_failure_reason, failure_marker,
       suggested_merge::text AS suggested_merge, merge_check_version, synthesized_at, inbox_status,
       acknowledged_at, resolved_at, resolution, resolution_note
FROM policy_conflicts
WHERE org_id = :org
  AND (CAST(:inbox AS text) IS NULL OR inbox_status = :inbox)
  AND (NOT CAST(:unresolvedOnly AS boolean) OR inbox_status <> 'resolved')
  AND (CAST(:state AS text) IS NULL OR synthesis_state = :state)
  AND (CAST(:action AS text) IS NULL OR action = :action)
  AND (CAST(:prefix AS text) IS NULL OR search_matches_text(target, :prefix)
       OR search_matches_text(dedup_key, :prefix)
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(rules) AS r WHERE search_matches_text(r ->> 'policy_id', :prefix)))
  AND (received_at, id) < (CAST(:positionReceivedAt AS timestamptz), CAST(:positionConflict AS uuid))
ORDER BY received_at DESC, id DESC LIMIT :limit
