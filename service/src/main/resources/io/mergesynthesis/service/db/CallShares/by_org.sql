-- The orgs the provider answered for on any replica after :since up to :now, by calls, most first, at most
-- :limit of them: each with its weight (1 without settings), and beside every row the number, calls and weights
-- of all the orgs called, not only of those returned, so that shares and due shares are of the whole. The ledger
-- rows are found through its index on created_at; a minute of calls is what is read.
WITH called AS (
    SELECT org_id, count(*) AS calls FROM llm_usage_events
     WHERE created_at > :since AND created_at <= :now GROUP BY org_id)
SELECT c.org_id, c.calls, coalesce(s.weight, 1) AS weight, count(*) OVER () AS all_orgs,
       sum(c.calls) OVER () AS all_calls, sum(coalesce(s.weight, 1)) OVER () AS all_weights
  FROM called c
  LEFT JOIN org_synthesis_settings s USING (org_id)
 ORDER BY c.calls DESC, c.org_id
 LIMIT :limit
