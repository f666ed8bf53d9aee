-- Opens batch :id of :org for :provider and :model: takes up to :limit of the org's conflicts due for the batch
-- lane (those reported with lane batch, and, when :wholeOrg, every one not reported with lane interactive), oldest
-- first (rows another replica is taking are skipped, not waited for), writes the batch's row and
-- marks each conflict batched with the batch's id, counting the attempt, in one statement: the row exists, and
-- the conflicts point at it, before the provider hears of the batch. No row is written when nothing is due.
-- Runs under the org's scope.
WITH picked AS (
    SELECT p.id
    FROM policy_conflicts p
    WHERE p.org_id = :org AND p.synthesis_state = 'pending' AND p.not_before <= now()
      AND (p.lane = 'batch' OR (:wholeOrg AND p.lane IS DISTINCT FROM 'interactive'))
    ORDER BY p.not_before
    LIMIT :limit
    FOR UPDATE OF p SKIP LOCKED),
opened AS (
    INSERT INTO llm_batches (id, org_id, provider, model, state, requests)
    SELECT :id, :org, :provider, :model, 'sending', count(*) FROM picked
    HAVING count(*) > 0
    RETURNING id)
UPDATE policy_conflicts c
SET synthesis_state = 'batched',
    batch_id = opened.id,
    batched_at = now(),
    attempts = c.attempts + 1,
    updated_at = now()
FROM picked CROSS JOIN opened
WHERE c.id = picked.id
RETURNING c.id, c.attempts
