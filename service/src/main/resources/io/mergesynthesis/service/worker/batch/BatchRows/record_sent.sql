-- Records the provider's id :providerBatchId for batch :id, found in the answer to its create or at the provider
-- afterwards; its first poll is due after :delayMicros. Only a batch still without an id takes one. Runs under the
-- batch's org scope.
UPDATE llm_batches
SET provider_batch_id = :providerBatchId,
    state = 'in_progress',
    sent_at = coalesce(sent_at, now()),
    next_poll_at = now() + :delayMicros * interval '1 microsecond'
WHERE id = :id AND provider_batch_id IS NULL
