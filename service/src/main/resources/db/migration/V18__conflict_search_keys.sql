-- merge-synthesis schema, version 18: the words an inbox search matches, kept apart so that a search finds its
-- conflicts by an index (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
-- A search is a prefix of a conflict's target, of the engine's key or of any rule's policy id. Checked row by row
-- down the inbox index, a prefix that few conflicts match read most of a large org's conflicts before it found a
-- page. conflict_search_keys holds each conflict's target, key and policy ids once each, under the conflict's
-- org, in an index that takes a prefix as a range. The inbox first asks that index how many conflicts a prefix
-- matches, up to a bound: when few, their page is read through it; when many, down the inbox index as before,
-- where a page of matches comes soon.
--
-- These words never change after ingest, so only an insert (and a delete) of a conflict writes here: the worker's
-- claims and stores cost nothing more. A key is kept to its first 200 characters, the longest prefix searched for,
-- which also keeps every entry well within an index page.

CREATE TABLE conflict_search_keys (
    org_id      uuid NOT NULL,
    search_key  text NOT NULL,
    conflict_id uuid NOT NULL
);

CREATE INDEX conflict_search_keys_prefix ON conflict_search_keys (org_id, search_key text_pattern_ops);

CREATE FUNCTION keep_conflict_search_keys() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO conflict_search_keys (org_id, search_key, conflict_id)
        SELECT DISTINCT NEW.org_id, left(k, 200), NEW.id
          FROM (SELECT NEW.target
                UNION ALL SELECT NEW.dedup_key
                UNION ALL SELECT r ->> 'policy_id' FROM jsonb_array_elements(NEW.rules) AS r) AS keys (k)
         WHERE k IS NOT NULL;
    ELSE
        DELETE FROM conflict_search_keys WHERE org_id = OLD.org_id AND conflict_id = OLD.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER policy_conflicts_search_keys
    AFTER INSERT OR DELETE ON policy_conflicts
    FOR EACH ROW EXECUTE FUNCTION keep_conflict_search_keys();

-- TRUNCATE fires no row trigger: the keys go with their conflicts (a DELETE, as schema 14's counts do).
CREATE FUNCTION forget_conflict_search_keys() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM conflict_search_keys;
    RETURN NULL;
END
$$;
CREATE TRIGGER policy_conflicts_search_keys_truncate
    AFTER TRUNCATE ON policy_conflicts
    FOR EACH STATEMENT EXECUTE FUNCTION forget_conflict_search_keys();

LOCK TABLE policy_conflicts IN SHARE MODE;
INSERT INTO conflict_search_keys (org_id, search_key, conflict_id)
SELECT DISTINCT c.org_id, left(k.k, 200), c.id
  FROM policy_conflicts c,
       LATERAL (SELECT c.target
                UNION ALL SELECT c.dedup_key
                UNION ALL SELECT r ->> 'policy_id' FROM jsonb_array_elements(c.rules) AS r) AS k (k)
 WHERE k.k IS NOT NULL;

ALTER TABLE conflict_search_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflict_search_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY conflict_search_keys_org_isolation ON conflict_search_keys
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

GRANT SELECT, INSERT ON conflict_search_keys TO merge_synthesis_tenant, merge_synthesis_sweep;
