-- The requests in batches the provider has not answered yet, by provider: the conflicts still batched, read from
-- their partial index. Runs cross-tenant, for the metrics.
SELECT b.provider, count(*) AS requests
FROM policy_conflicts c JOIN llm_batches b ON b.id = c.batch_id
WHERE c.synthesis_state = 'batched'
GROUP BY b.provider
