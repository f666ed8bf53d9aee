-- Takes the hold on the batch most overdue for a poll, for :owner during :leaseMicros: one replica at a time
-- polls a batch; a hold whose holder died ends by itself. Batches another replica is taking are skipped. A batch
-- whose create may still be on its way (sending, younger than :graceMicros) is left to its sender. Runs
-- cross-tenant.
UPDATE llm_batches b
SET poll_owner = :owner,
    poll_until = now() + :leaseMicros * interval '1 microsecond'
WHERE b.id = (SELECT d.id FROM llm_batches d
              WHERE d.state <> 'done' AND d.next_poll_at <= now()
                AND (d.state <> 'sending' OR d.created_at <= now() - :graceMicros * interval '1 microsecond')
                AND (d.poll_until IS NULL OR d.poll_until <= now())
              ORDER BY d.next_poll_at
              LIMIT 1
              FOR UPDATE SKIP LOCKED)
RETURNING b.id, b.org_id, b.provider, b.model, b.provider_batch_id, b.state, b.created_at, b.ended_at,
          b.cancel_requested_at IS NOT NULL AND b.cancel_sent_at IS NULL AS cancel_due
