-- The conflicts of the scoped org with a search key that matches :prefix (anywhere in a key, any case; the start of a
-- key for fewer than three characters), one row per key matched, no more than :most: the function reads the trigram
-- or the prefix index of the keys and stops at :most. Fewer than :most rows means every match was found, and the
-- _by_key page then reads those conflicts by id rather than asking the index again. A function, because under
-- row-level security LIKE could not be an index condition (schema 21).
SELECT matched FROM conflicts_matching_search(:prefix, :most) AS matched
