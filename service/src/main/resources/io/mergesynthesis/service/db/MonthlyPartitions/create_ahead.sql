-- The partitions of the current month through :months months later, and of any month with rows in a DEFAULT
-- partition, that did not exist yet (schema 15): one row per partition made.
SELECT partition FROM create_month_partitions_ahead(:months) AS made(partition)
