-- merge-synthesis schema, version 21: a search finds its words anywhere in a target, an engine key or a policy id,
-- in any case (docs/adr/0054-search-by-trigrams.md).
--
-- Schema 18 matched a prefix, case included: "delete_repo" did not find github.delete_repo, nor "GITHUB" github.push.
-- Now a search of three characters or more matches anywhere in a key, through a GIN trigram index (pg_trgm, a
-- trusted extension since PostgreSQL 13: the database's owner may create it), and a shorter one matches the start of
-- a key through a btree range; both lower-case the key and the search.
--
-- Under row-level security only a leakproof condition may be an index condition, and LIKE is not one: as the tenant
-- role the trigram index would never be used. So the keys are read by conflicts_matching_search(), which runs as
-- the schema's owner and names the org itself (current_org_id(), the transaction's scope, so no scope matches
-- nothing as before). For that the table's row-level security is no longer forced on its owner; it stays enabled,
-- and every service role remains held to it.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

DROP INDEX conflict_search_keys_prefix;
CREATE INDEX conflict_search_keys_prefix ON conflict_search_keys (org_id, lower(search_key) text_pattern_ops);
CREATE INDEX conflict_search_keys_trigrams ON conflict_search_keys USING gin (lower(search_key) gin_trgm_ops);

ALTER TABLE conflict_search_keys NO FORCE ROW LEVEL SECURITY;

-- Whether one text matches a search, row by row: the same rule as conflicts_matching_search(), for the pages read
-- down the inbox index when a search matches many conflicts. Inlined where it is used.
CREATE FUNCTION search_matches_text(haystack text, search text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN length(search) < 3 THEN starts_with(lower(haystack), lower(search))
                ELSE strpos(lower(haystack), lower(search)) > 0 END
$$;

-- The ids of the scoped org's conflicts with a key that matches :search, up to :most keys (null: all). The LIKE
-- pattern escapes the search's own % _ and \, which are characters of targets here, not wildcards. Planned for
-- each call, so the pattern is known when the index is chosen.
CREATE FUNCTION conflicts_matching_search(search text, most integer) RETURNS SETOF uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 100
    SET search_path = public, pg_temp
    SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    IF length(search) < 3 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id() AND starts_with(lower(search_key), lower(search))
                      LIMIT most;
    ELSE
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id()
                        AND lower(search_key) LIKE '%' || replace(replace(replace(lower(search), '\', '\\'), '%', '\%'),
                                                                  '_', '\_') || '%'
                      LIMIT most;
    END IF;
END
$$;

REVOKE ALL ON FUNCTION conflicts_matching_search(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION conflicts_matching_search(text, integer) TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT EXECUTE ON FUNCTION search_matches_text(text, text) TO merge_synthesis_tenant, merge_synthesis_sweep;
