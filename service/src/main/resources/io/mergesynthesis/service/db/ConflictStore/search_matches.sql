-- How many search keys of :org's conflicts a search matches (:pattern, a LIKE pattern of the prefix: its own
-- wildcards escaped, then %), counting no further than :most: a range of the search key index, never more than
-- :most entries read. Fewer than :most means every match was counted, and the conflicts matched are no more.
SELECT count(*) AS n
  FROM (SELECT 1 FROM conflict_search_keys
         WHERE org_id = :org AND search_key LIKE :pattern
         LIMIT :most) AS found
