-- merge-synthesis schema, version 25: the trigram index is asked for a search's rarest word only
-- (docs/adr/0054-search-by-trigrams.md).
--
-- pg_trgm splits a search into words at every character that is not a letter or a digit, and the trigram index
-- finds the keys holding every trigram of every word: it takes candidates from its rarer trigrams and looks each
-- one up in the posting list of every common one. A policy id such as pol-org-1017 holds the words pol and org,
-- which half of all keys hold too, so the few keys that match cost a look-up in several lists of millions each.
--
-- Now a search of several words asks the index for the one of them that the fewest keys hold, as a sample of the
-- table's pages counts them (the same pages each time, so a search is planned the same way), and checks the whole
-- search on the keys found: strpos is no index condition, so the index is asked for that word alone. A search of
-- one word is looked up whole, as before. An org of fewer than 5,000 keys (about a thousand conflicts) pays for
-- neither the sample nor the trigram index: its keys are read whole from the prefix index, from the index alone
-- (schema 24), in a millisecond or two, whatever the search.

CREATE OR REPLACE FUNCTION conflicts_matching_search(search text, most integer) RETURNS SETOF uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 100
    SET search_path = public, pg_temp
    SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    words   text[];
    word    text;
    rarest  text;
    fewest  bigint;
    holding bigint;
BEGIN
    IF length(search) < 3 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id() AND starts_with(lower(search_key), lower(search))
                      LIMIT most;
        RETURN;
    END IF;
    -- An org of few keys is read whole from the prefix index, never through the trigram index, whose lookups cost
    -- by how many keys of every org hold the search's trigrams: strpos is no index condition.
    IF (SELECT count(*) FROM (SELECT FROM conflict_search_keys WHERE org_id = current_org_id() LIMIT 5000) AS k)
       < 5000 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id() AND strpos(lower(search_key), lower(search)) > 0
                      LIMIT most;
        RETURN;
    END IF;
    -- pg_trgm's words: runs of letters and digits; only one of three characters or more has a trigram.
    SELECT array_agg(DISTINCT w) INTO words
      FROM regexp_split_to_table(lower(search), '[^[:alnum:]]+') AS w WHERE length(w) >= 3;
    IF cardinality(words) IS NULL OR cardinality(words) < 2 THEN
        RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                      WHERE org_id = current_org_id()
                        AND lower(search_key) LIKE '%' || replace(replace(replace(lower(search), '\', '\\'), '%', '\%'),
                                                                  '_', '\_') || '%'
                      LIMIT most;
        RETURN;
    END IF;
    FOREACH word IN ARRAY words LOOP
        SELECT count(*) INTO holding
          FROM conflict_search_keys TABLESAMPLE SYSTEM (0.05) REPEATABLE (25)
         WHERE strpos(lower(search_key), word) > 0;
        IF rarest IS NULL OR holding < fewest OR (holding = fewest AND length(word) > length(rarest)) THEN
            rarest := word;
            fewest := holding;
        END IF;
    END LOOP;
    RETURN QUERY SELECT conflict_id FROM conflict_search_keys
                  WHERE org_id = current_org_id()
                    AND lower(search_key) LIKE '%' || rarest || '%'
                    AND strpos(lower(search_key), lower(search)) > 0
                  LIMIT most;
END
$$;
