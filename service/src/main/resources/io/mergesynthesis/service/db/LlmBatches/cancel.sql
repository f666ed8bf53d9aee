-- Asks that batch :id be canceled at its provider (a second ask keeps the first's time and reason), and polls it
-- at once; no row when there is no such batch. Runs cross-tenant, for the platform.
UPDATE llm_batches
SET cancel_requested_at = coalesce(cancel_requested_at, now()),
    cancel_reason = coalesce(cancel_reason, 'requested'),
    next_poll_at = CASE WHEN state = 'done' THEN next_poll_at ELSE now() END
WHERE id = :id
RETURNING id, org_id, provider, model, provider_batch_id, state, requests, reserved_cost_usd, cost_usd, created_at,
          ended_at, cancel_requested_at, cancel_reason, cancel_sent_at
