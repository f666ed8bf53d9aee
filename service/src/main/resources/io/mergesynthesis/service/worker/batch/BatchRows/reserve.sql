-- Sets batch :id's requests to :requests and reserves :reservedUsd, their expected cost at the batch price, against
-- its org's budget until the batch is done, and notes the :inputTokens they hold in the provider's queue; before its
-- create is sent. Runs under the batch's org scope.
UPDATE llm_batches
SET requests = :requests,
    reserved_cost_usd = :reservedUsd,
    input_tokens = :inputTokens
WHERE id = :id AND provider_batch_id IS NULL
