-- The provider was asked to cancel batch :id. Only the holder :owner marks it. Runs under the batch's org scope.
UPDATE llm_batches SET cancel_sent_at = now() WHERE id = :id AND poll_owner = :owner
