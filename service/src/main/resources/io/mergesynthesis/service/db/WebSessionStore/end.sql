-- Ends the session known by :hash at :now; one already ended keeps its first end (schema 22).
SELECT end_web_session(:hash, :now)
