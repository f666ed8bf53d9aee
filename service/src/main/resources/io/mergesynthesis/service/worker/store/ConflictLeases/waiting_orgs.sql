-- Every org with a pending conflict due, as a pool's picture of the fair order (claim.sql, ADR 0069): its weight,
-- its route (the provider of its model, '*' for the configured primary's), its last tag (the highest claim_tag of
-- its conflicts in flight or done; null for an org never served) and its oldest due conflict. Found by one descent
-- per waiting org of policy_conflicts_pending_by_org, as the claim's own walk does. Runs cross-tenant.
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
        LIMIT 1) AS last_tag
FROM waiting w LEFT JOIN org_synthesis_settings s ON s.org_id = w.org_id
WHERE w.oldest <= now()
