-- The :limit newest batches of every org, for the operator. Runs cross-tenant.
SELECT id, org_id, provider, model, provider_batch_id, state, requests, reserved_cost_usd, cost_usd, created_at,
       ended_at, cancel_requested_at, cancel_reason, cancel_sent_at
FROM llm_batches
ORDER BY created_at DESC
LIMIT :limit
