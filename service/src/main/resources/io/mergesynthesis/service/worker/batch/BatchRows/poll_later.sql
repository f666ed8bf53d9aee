-- Lets go of the hold on batch :id, its next poll due after :delayMicros; only its holder :owner can. Runs under
-- the batch's org scope.
UPDATE llm_batches
SET poll_owner = NULL, poll_until = NULL, next_poll_at = now() + :delayMicros * interval '1 microsecond'
WHERE id = :id AND poll_owner = :owner
