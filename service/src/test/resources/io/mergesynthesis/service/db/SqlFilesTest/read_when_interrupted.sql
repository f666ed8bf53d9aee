-- Read only by the test of a thread that is interrupted while it loads a class's statements.
SELECT 1 AS one
