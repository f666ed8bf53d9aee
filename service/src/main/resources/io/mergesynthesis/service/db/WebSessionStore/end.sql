-- Ends the session known by :hash at :now; one already ended keeps its first end.
UPDATE web_sessions SET ended_at = :now WHERE id_sha256 = :hash AND ended_at IS NULL
