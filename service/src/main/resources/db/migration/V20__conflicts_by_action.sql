-- merge-synthesis schema, version 20: an inbox page filtered by action read from an index of that action's
-- conflicts alone (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
-- The action filter was checked on the rows the inbox index passes. An action most of an org's conflicts share
-- finds its page within a few rows; one that is rare in a large org (a hundred data exports among a million tool
-- calls) read most of the org's history first. conflicts_by_action holds each conflict's org, action and
-- received_at, in the page's order, so that a page of one action is the first rows of one range, each fetched by
-- its id.
--
-- A conflict's action and received_at never change after ingest, so the rows are written by the statement that
-- inserts conflicts and removed by the one that deletes them, as the search keys are (schema 19): the worker's
-- claims and stores write nothing here. An index on policy_conflicts itself would do the same work but gain an
-- entry on every claim and every store, neither of which can be a HOT update. An update that does set one of
-- these columns (none of the service's statements does) moves the row, so the index never lies.

CREATE TABLE conflicts_by_action (
    org_id      uuid            NOT NULL,
    action      conflict_action NOT NULL,
    received_at timestamptz     NOT NULL,
    conflict_id uuid            NOT NULL
);

CREATE FUNCTION add_conflicts_by_action() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO conflicts_by_action (org_id, action, received_at, conflict_id)
    SELECT org_id, action, received_at, id FROM added;
    RETURN NULL;
END
$$;

CREATE FUNCTION remove_conflicts_by_action() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM conflicts_by_action a
     USING removed r
     WHERE a.org_id = r.org_id AND a.action = r.action AND a.received_at = r.received_at
       AND a.conflict_id = r.id;
    RETURN NULL;
END
$$;

CREATE FUNCTION move_conflict_by_action() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM conflicts_by_action
     WHERE org_id = OLD.org_id AND action = OLD.action AND received_at = OLD.received_at AND conflict_id = OLD.id;
    INSERT INTO conflicts_by_action (org_id, action, received_at, conflict_id)
    VALUES (NEW.org_id, NEW.action, NEW.received_at, NEW.id);
    RETURN NULL;
END
$$;

-- TRUNCATE fires no row or statement trigger of DELETE: the rows go with their conflicts, as the counts' do.
CREATE FUNCTION forget_conflicts_by_action() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM conflicts_by_action;
    RETURN NULL;
END
$$;

CREATE TRIGGER policy_conflicts_by_action_added
    AFTER INSERT ON policy_conflicts
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION add_conflicts_by_action();
CREATE TRIGGER policy_conflicts_by_action_removed
    AFTER DELETE ON policy_conflicts
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION remove_conflicts_by_action();
CREATE TRIGGER policy_conflicts_by_action_moved
    AFTER UPDATE OF org_id, action, received_at ON policy_conflicts
    FOR EACH ROW
    WHEN (OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.action IS DISTINCT FROM NEW.action
          OR OLD.received_at IS DISTINCT FROM NEW.received_at)
    EXECUTE FUNCTION move_conflict_by_action();
CREATE TRIGGER policy_conflicts_by_action_truncate
    AFTER TRUNCATE ON policy_conflicts
    FOR EACH STATEMENT EXECUTE FUNCTION forget_conflicts_by_action();

-- The conflicts already stored, taken while no conflict can change; the index built after, in one pass.
LOCK TABLE policy_conflicts IN SHARE MODE;
INSERT INTO conflicts_by_action (org_id, action, received_at, conflict_id)
SELECT org_id, action, received_at, id FROM policy_conflicts;

CREATE INDEX conflicts_by_action_page ON conflicts_by_action (org_id, action, received_at DESC, conflict_id DESC);

ALTER TABLE conflicts_by_action ENABLE ROW LEVEL SECURITY;
ALTER TABLE conflicts_by_action FORCE ROW LEVEL SECURITY;
CREATE POLICY conflicts_by_action_org_isolation ON conflicts_by_action
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

GRANT SELECT, INSERT ON conflicts_by_action TO merge_synthesis_tenant, merge_synthesis_sweep;
