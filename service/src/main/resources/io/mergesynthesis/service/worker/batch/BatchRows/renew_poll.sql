-- Renews :owner's hold on batch :id for :leaseMicros more: a poller keeps its hold short and renews it as it goes,
-- so that one which dies lets the batch go soon. No row when the hold is no longer :owner's. Runs under the
-- batch's org scope.
UPDATE llm_batches
SET poll_until = now() + :leaseMicros * interval '1 microsecond'
WHERE id = :id AND poll_owner = :owner
