-- :org's events in (:afterTx/:afterId, :upToTx/:upToId], in stream order, with the conflict fields that never
-- change after ingest. The range came from end_of_page_of_org.sql, so every transaction that wrote in it had
-- finished. LEFT JOIN: an event is delivered even if its conflict row were ever out of reach.
SELECT e.id, e.tx_id::text AS tx_id, e.org_id, e.conflict_id, e.event_type, e.occurred_at,
       e.details::text AS details, c.dedup_key, c.action, c.target, c.winner_policy_id
  FROM conflict_events e
  LEFT JOIN policy_conflicts c ON c.id = e.conflict_id
 WHERE e.org_id = :org AND (e.tx_id, e.id) > (CAST(:afterTx AS text)::xid8, :afterId)
   AND (e.tx_id, e.id) <= (CAST(:upToTx AS text)::xid8, :upToId)
-- e.tx_id is the column, an xid8, not the text of the select list: stream order is the numbers' order.
 ORDER BY e.tx_id, e.id
