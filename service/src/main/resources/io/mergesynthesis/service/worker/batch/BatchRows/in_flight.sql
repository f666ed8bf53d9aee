-- The batches not yet done, by provider: each provider holds at most llm.batch.maxInFlight of them. Read from the
-- partial index of the batches to poll. Runs cross-tenant.
SELECT provider, count(*) AS batches
FROM llm_batches
WHERE state <> 'done'
GROUP BY provider
