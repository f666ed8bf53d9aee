-- The batch conflict :id is in, with when it went in; no row when it is in none. Runs under the conflict's org scope.
SELECT b.id, b.provider, b.model, b.provider_batch_id, b.state, c.batched_at, b.cancel_requested_at
FROM policy_conflicts c
JOIN llm_batches b ON b.id = c.batch_id
WHERE c.id = :id AND c.synthesis_state = 'batched'
