-- One event of the SIEM stream, in the transaction that makes the change it describes.
INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
VALUES (:org, :conflict, :type, CAST(:details AS jsonb))
