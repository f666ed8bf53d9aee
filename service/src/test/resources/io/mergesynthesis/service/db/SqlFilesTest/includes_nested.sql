SELECT 1 FROM (
    \ir with_piece.sql
) nested
