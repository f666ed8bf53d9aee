-- Puts the conflicts of batch :batch still in it (:id alone when not null) back to pending, claimable at once,
-- with the attempt the batch counted taken back: an expired or canceled request, or a batch the provider never
-- made, says nothing about the conflict. Runs under the batch's org scope.
UPDATE policy_conflicts
SET synthesis_state = 'pending',
    attempts = attempts - 1,
    batch_id = NULL,
    batched_at = NULL,
    not_before = now(),
    updated_at = now()
WHERE batch_id = :batch AND synthesis_state = 'batched' AND (CAST(:id AS uuid) IS NULL OR id = :id)
