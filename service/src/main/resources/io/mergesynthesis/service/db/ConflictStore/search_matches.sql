-- How many search keys of :org's conflicts start with :prefix, counting no further than :most: a range of the
-- search key index, never more than :most entries read. Fewer than :most means every match was counted, and the
-- conflicts matched are no more. starts_with, not LIKE: under row-level security only a function that cannot leak
-- what it reads may become an index condition, and LIKE is not marked so.
SELECT count(*) AS n
  FROM (SELECT 1 FROM conflict_search_keys
         WHERE org_id = :org AND starts_with(search_key, :prefix)
         LIMIT :most) AS found
