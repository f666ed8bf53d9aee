-- Waits for a fold in progress to end and keeps any other from starting until this transaction ends: the lock
-- lock_folding.sql tries. A recount run beside a fold could count a change twice, once in the fold's sum and once
-- in its own count.
SELECT pg_advisory_xact_lock(hashtext('org_conflict_counts'))
