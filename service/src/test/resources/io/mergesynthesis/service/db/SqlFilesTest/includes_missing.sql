SELECT 1 FROM (
    \ir not_there.sql
) missing
