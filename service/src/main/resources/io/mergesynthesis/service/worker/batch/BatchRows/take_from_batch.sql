-- Takes conflict :id out of batch :batch to store its result: leased to :owner for :leaseMicros, as a claim
-- leases it, so that the result goes through the lease-fenced store of every attempt. Its attempt was counted
-- when it was batched. No row when the conflict is no longer in this batch. Runs under the org's scope.
UPDATE policy_conflicts
SET synthesis_state = 'in_progress',
    lease_owner = :owner,
    lease_expires_at = now() + :leaseMicros * interval '1 microsecond',
    not_before = now() + :leaseMicros * interval '1 microsecond',
    batch_id = NULL,
    updated_at = now()
WHERE id = :id AND batch_id = :batch AND synthesis_state = 'batched'
RETURNING org_id, attempts
