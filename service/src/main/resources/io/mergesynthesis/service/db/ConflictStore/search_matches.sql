-- How many search keys of the scoped org's conflicts match :prefix (anywhere in a key, any case; the start of a key
-- for fewer than three characters), counting no further than :most: the function reads the trigram or the prefix
-- index of the keys and stops at :most. Fewer than :most means every match was counted, and the conflicts matched
-- are no more. A function, because under row-level security LIKE could not be an index condition (schema 21).
SELECT count(*) AS n FROM conflicts_matching_search(:prefix, :most)
