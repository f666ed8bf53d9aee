-- The last event retention dropped from the stream of :org (the nil UUID for the platform-wide stream), when it
-- lies after (:afterTx, :afterId): a reader at that position never read it, nor anything dropped before it, and
-- must be told rather than led on past the gap. No row when nothing the reader has not read was dropped.
SELECT tx_id::text AS tx_id, id FROM event_stream_horizon
 WHERE org_id = :org AND (tx_id, id) > (CAST(:afterTx AS text)::xid8, :afterId)
