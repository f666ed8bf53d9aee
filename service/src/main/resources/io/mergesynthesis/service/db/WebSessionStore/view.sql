-- Sets the org (:org, null for none) the platform session known by :hash looks at (schema 22).
SELECT view_in_web_session(:hash, :org)
