-- The piece's own comment is not sent either.
INSERT INTO trip_probe (org_id, note)
SELECT :org, 'x'
RETURNING note
