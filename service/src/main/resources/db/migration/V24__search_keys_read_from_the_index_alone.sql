-- merge-synthesis schema, version 24: a search reads its org's keys from the prefix index alone
-- (docs/adr/0054-search-by-trigrams.md).
--
-- conflicts_matching_search() reads an org's keys down (org_id, lower(search_key)) when that is cheaper than the
-- trigram index: for an org of a few hundred conflicts, and for a search that matches most of a big org's keys, where
-- the count stops at its bound after a few thousand. The LIKE is not an index condition there, only a filter, and
-- PostgreSQL checks a filter on the table's row, not on the index entry: each key passed fetched its row first. A
-- search matching many of a big org's keys, but none of its first ones in index order (targets sort before policy
-- ids), fetched tens of thousands of rows before its bound was reached. With the key and the conflict's id in the
-- index, the scan reads neither from the table (an index-only scan, on pages the visibility map marks all-visible,
-- which autovacuum keeps so: these rows are never updated). The planner only takes an index-only scan when every
-- column the statement names is in the index, and lower(search_key) names search_key: so the key itself is
-- included, not only its lower case.

DROP INDEX conflict_search_keys_prefix;
CREATE INDEX conflict_search_keys_prefix ON conflict_search_keys (org_id, lower(search_key) text_pattern_ops)
    INCLUDE (conflict_id, search_key);
