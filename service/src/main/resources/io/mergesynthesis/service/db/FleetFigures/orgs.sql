-- One row per org known to conflicts, this month's spend (from :month), settings or a name: its name, its
-- conflicts, those waiting for budget and those marked, its calls and cost this month, its model and budget.
-- Costliest first; only those whose name or id starts with :prefix (already lower case, LIKE-escaped; empty
-- for all), a page of :limit from :offset.
WITH conflicts AS (
    SELECT org_id, count(*) AS conflicts,
           count(*) FILTER (WHERE synthesis_state = 'waiting_budget') AS waiting,
           count(*) FILTER (WHERE synthesis_state = 'max_attempts_exceeded') AS failed
      FROM policy_conflicts GROUP BY org_id),
spend AS (
    SELECT org_id, count(*) AS calls, sum(cost_usd) AS cost
      FROM llm_usage_events WHERE created_at >= :month GROUP BY org_id)
SELECT org_id, n.name, coalesce(c.conflicts, 0) AS conflicts, coalesce(c.waiting, 0) AS waiting,
       coalesce(c.failed, 0) AS failed, coalesce(p.calls, 0) AS calls,
       coalesce(p.cost, 0) AS cost, s.model, s.monthly_budget_usd
  FROM conflicts c
  FULL JOIN spend p USING (org_id)
  FULL JOIN org_synthesis_settings s USING (org_id)
  FULL JOIN org_names n USING (org_id)
 WHERE :prefix = '' OR lower(n.name) LIKE :prefix || '%' OR org_id::text LIKE :prefix || '%'
 ORDER BY coalesce(p.cost, 0) DESC, coalesce(c.conflicts, 0) DESC, lower(n.name), org_id
 LIMIT :limit OFFSET :offset
