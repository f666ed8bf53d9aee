-- Where the page after (:afterTx, :afterId) of :org's events ends: the last of at most :limit events, all of
-- finished transactions; no row when no finished event follows. :org is the org in scope, repeated for the
-- planner.
--
-- A page never reaches the oldest transaction still running (pg_snapshot_xmin): every event below that mark
-- belongs to a finished transaction, so the rows below a position, once read, never change.
--
-- The outer query sorts by page.tx_id, the xid8: the bare name would be the text column of the select list, by
-- which 1000 sorts before 999 and a page crossing a power of ten ended early.
SELECT page.tx_id::text AS tx_id, page.id FROM (
    SELECT tx_id, id FROM conflict_events
     WHERE org_id = :org AND (tx_id, id) > (CAST(:afterTx AS text)::xid8, :afterId)
       AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id, id
     LIMIT :limit) page
 ORDER BY page.tx_id DESC, page.id DESC
 LIMIT 1
