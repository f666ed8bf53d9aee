-- Every result of batch :id is stored: nothing is left to poll, and :costUsd is what its answers cost (null when
-- the provider never made it). Only the holder :owner marks it. Runs under the batch's org scope.
UPDATE llm_batches
SET state = 'done', poll_owner = NULL, poll_until = NULL, cost_usd = :costUsd
WHERE id = :id AND poll_owner = :owner
