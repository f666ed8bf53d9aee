-- Up to :limit of :org's conflicts that pass the inbox's filters, newest first, strictly older than the keyset
-- position (:positionReceivedAt, :positionConflict). The position is not optional here, so that it stays a
-- condition of the index scan whatever plan the server keeps for the statement.
-- Read for a search that few conflicts match: search_matches.sql found them through the search key indexes
-- (conflicts_matching_search, schema 21), and their ids, :matched, are read here and sorted, instead of checking
-- the org's conflicts one by one down the inbox index, or asking the key indexes a second time. A null filter
-- does not filter.
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
  AND id = ANY(:matched)
  AND (received_at, id) < (CAST(:positionReceivedAt AS timestamptz), CAST(:positionConflict AS uuid))
ORDER BY received_at DESC, id DESC LIMIT :limit
