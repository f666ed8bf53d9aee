-- The provider refused the create of batch :id outright (a 4xx answer): it made no batch, so the row is done, at no
-- cost, and reserves nothing more. Only a row without a provider id. Runs under the batch's org scope.
UPDATE llm_batches
SET state = 'done', cost_usd = 0
WHERE id = :id AND provider_batch_id IS NULL
