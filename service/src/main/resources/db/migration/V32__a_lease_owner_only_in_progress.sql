-- merge-synthesis schema, version 32: a conflict has a lease owner only while it is in progress.
--
-- Every statement that ends a lease (a merge stored, a retry, the marker, a hand-back, a parked conflict) is
-- fenced on the lease it was given: the owner and the attempt. They also asked for the state to be in progress,
-- which the fence already implies as long as every move out of that state clears the owner, as each one does.
-- That redundant condition matched the predicate of the index of leases by expiry, and wherever the statistics
-- dated from a moment with few leases held, the planner read that whole index with a filter on the id instead of
-- the primary key: a read of every lease in flight for every row a worker wrote. The fences now name no state,
-- and this constraint keeps what they rely on true for every writer, present and future.

ALTER TABLE policy_conflicts
    ADD CONSTRAINT policy_conflicts_owner_only_in_progress
    CHECK (lease_owner IS NULL OR synthesis_state = 'in_progress');
