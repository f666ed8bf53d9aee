-- Batch :id has ended at the provider: the moment is kept from the first look that saw it, and every ledger row
-- of its results carries it, so that reading the results again writes the same rows. Only the holder :owner
-- marks it. Runs under the batch's org scope.
UPDATE llm_batches
SET state = 'ended', ended_at = coalesce(ended_at, now())
WHERE id = :id AND poll_owner = :owner
RETURNING ended_at
