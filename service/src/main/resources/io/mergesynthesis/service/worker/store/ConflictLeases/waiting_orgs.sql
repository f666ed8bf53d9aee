-- Every org with a pending conflict, as a pool's picture of the fair order (claim.sql, ADR 0069): its weight, its
-- route (the provider of its model, '*' for the configured primary's), its last tag (the highest claim_tag of its
-- conflicts in flight or done; null for an org never served), its oldest pending conflict, whether that one is due,
-- and the microseconds until its first pending conflict not due yet comes due (a retry's backoff), by the database
-- clock, null when none waits so: the least of these tells an idle pool when to claim next. Found by one descent
-- per waiting org of policy_conflicts_pending_by_org, as the claim's own walk does, and one more for the org's
-- first row not due. An org in the batch lane is left out: the batch lane sends its conflicts, and in the picture
-- it would take a place the claim can do nothing with (schema 28). Runs cross-tenant.
WITH RECURSIVE waiting (org_id, oldest) AS (
    (SELECT org_id, not_before
     FROM policy_conflicts
     WHERE synthesis_state = 'pending'
     ORDER BY org_id, not_before
     LIMIT 1)
    UNION ALL
    SELECT next_org.org_id, next_org.not_before
    FROM waiting w CROSS JOIN LATERAL (
        SELECT p.org_id, p.not_before
        FROM policy_conflicts p
        WHERE p.synthesis_state = 'pending' AND p.org_id > w.org_id
        ORDER BY p.org_id, p.not_before
        LIMIT 1) next_org)
SELECT w.org_id, w.oldest, coalesce(s.weight, 1) AS weight,
       coalesce(split_part(s.model, '/', 1), '*') AS route,
       (SELECT f.claim_tag FROM policy_conflicts f
        WHERE f.org_id = w.org_id AND f.synthesis_state IN ('in_progress', 'done')
        ORDER BY f.claim_tag DESC
        LIMIT 1) AS last_tag,
       w.oldest <= now() AS due,
       (SELECT (extract(epoch FROM min(l.not_before) - now()) * 1000000)::bigint
        FROM policy_conflicts l
        WHERE l.org_id = w.org_id AND l.synthesis_state = 'pending' AND l.not_before > now()) AS later_in_micros
FROM waiting w LEFT JOIN org_synthesis_settings s ON s.org_id = w.org_id
WHERE s.lane IS DISTINCT FROM 'batch'
