-- Up to :limit of :org's conflicts that pass the inbox's filters, oldest first, strictly newer than the keyset
-- position (:positionReceivedAt, :positionConflict).
-- Read for a filter by action (:action) when no other filter holds fewer conflicts: down the range of
-- conflicts_by_action (schema 20) that holds the org's conflicts of that action alone, in the page's order, each
-- conflict fetched by its id and checked against the other filters, stopping at :limit. The org's conflicts of
-- other actions are never read. A null filter does not filter.
-- The position is not optional here, so that it stays a condition of the index scan whatever plan the server
-- keeps for the statement.
\ir conflicts_of_action.sql
  AND (a.received_at, a.conflict_id) > (CAST(:positionReceivedAt AS timestamptz), CAST(:positionConflict AS uuid))
ORDER BY a.received_at ASC, a.conflict_id ASC LIMIT :limit
