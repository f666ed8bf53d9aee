-- The partitions' upkeep, one at a time across replicas and the command: true when this transaction now holds
-- the lock :lockKey until it ends, false when another holds it.
SELECT pg_try_advisory_xact_lock(:lockKey)
