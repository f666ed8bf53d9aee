-- One row per org known to conflicts, this month's spend (:month, the moment this month began), settings
-- or a name: its name, its conflicts, those waiting for budget and those marked, its calls and cost this month,
-- its model and budget. Conflicts come from the counts kept per org and spend from the running month totals
-- (schema 14), so the list costs the same however many conflicts and calls lie behind it.
-- Ordered by :sort: 'spend' (costliest first), 'conflicts' (most first) or 'name' (by name, unnamed orgs last);
-- only those whose name or id starts with :prefix (already lower case, LIKE-escaped; empty for all), a page of
-- :limit from :offset.
WITH conflicts AS (
    SELECT org_id, sum(n)::bigint AS conflicts,
           coalesce(sum(n) FILTER (WHERE synthesis_state = 'waiting_budget'), 0)::bigint AS waiting,
           coalesce(sum(n) FILTER (WHERE synthesis_state = 'max_attempts_exceeded'), 0)::bigint AS failed
      FROM org_conflict_totals GROUP BY org_id),
spend AS (
    SELECT org_id, calls, cost_usd AS cost FROM org_spend_by_month WHERE month = ledger_month(CAST(:month AS timestamptz))),
listed AS (
    SELECT org_id, n.name, coalesce(c.conflicts, 0) AS conflicts, coalesce(c.waiting, 0) AS waiting,
           coalesce(c.failed, 0) AS failed, coalesce(p.calls, 0) AS calls,
           coalesce(p.cost, 0) AS cost, s.model, s.monthly_budget_usd
      FROM conflicts c
      FULL JOIN spend p USING (org_id)
      FULL JOIN org_synthesis_settings s USING (org_id)
      FULL JOIN org_names n USING (org_id)
     WHERE :prefix = '' OR lower(n.name) LIKE :prefix || '%' OR org_id::text LIKE :prefix || '%')
SELECT * FROM listed
 ORDER BY CASE WHEN :sort = 'spend' THEN cost END DESC NULLS LAST,
          CASE WHEN :sort IN ('spend', 'conflicts') THEN conflicts END DESC NULLS LAST,
          lower(name) NULLS LAST, org_id
 LIMIT :limit OFFSET :offset
