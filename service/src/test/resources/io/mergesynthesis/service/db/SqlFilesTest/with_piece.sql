-- Includes a piece, indented where the include line is.
WITH written AS (
    \ir piece.sql
)
SELECT count(*) FROM written
