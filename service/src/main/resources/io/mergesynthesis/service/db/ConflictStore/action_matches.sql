-- How many of :org's conflicts have action :action, counting no further than :most: a range of the
-- conflicts_by_action index (schema 20), never more than :most entries read.
SELECT count(*) AS n
  FROM (SELECT 1 FROM conflicts_by_action
         WHERE org_id = :org AND action = :action
         LIMIT :most) AS found
