-- The batches not yet done, by provider and model, with the input tokens they hold in the provider's queue: each
-- provider holds at most llm.batch.maxInFlight of them, and a model at most its llm.batch.enqueuedTokens. Read from
-- the partial index of the batches to poll. Runs cross-tenant.
SELECT provider, model, count(*) AS batches, sum(input_tokens)::bigint AS input_tokens
FROM llm_batches
WHERE state <> 'done'
GROUP BY provider, model
