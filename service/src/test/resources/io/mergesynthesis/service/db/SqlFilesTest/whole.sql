-- A comment for the reader: with a :colon and a ; that are not sent.
SELECT id, note -- a trailing remark
FROM trip_probe
WHERE note = '-- kept: inside a string'
