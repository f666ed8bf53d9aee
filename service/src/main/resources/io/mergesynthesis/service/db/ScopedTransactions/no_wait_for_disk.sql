-- Lets this transaction's commit return before its WAL reaches the disk; see OneTripBatch.withoutWaitingForDisk
-- for which writes may use it.
SELECT set_config('synchronous_commit', 'off', true)
