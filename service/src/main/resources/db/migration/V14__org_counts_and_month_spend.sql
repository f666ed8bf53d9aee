-- merge-synthesis schema, version 14: figures kept as rows change, so that reading them costs the same for an org of
-- ten conflicts and one of ten million (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
--   org_conflict_counts  how many of each org's conflicts are in each pair of synthesis state and inbox status,
--                        a conflict in progress counted as pending: a claim and a lease handed back move no count,
--                        so the worker's claim writes nothing here. The few conflicts in progress at any moment (at
--                        most one per busy worker) are counted when read, from the leases' index.
--                        Triggers on policy_conflicts write it in the same transaction as the change itself, so
--                        it is exact, never an estimate. A change adds a row (one out of the old pair, one into the
--                        new) rather than updating a counter: two transactions that change the same org's
--                        conflicts never wait for each other's commit on a counter row, and can never deadlock on
--                        one. A fold (a scheduled task of any replica) sums each org's rows back to one per pair.
--                        An org's counts are the sum of its rows: a handful once folded.
--   org_spend_by_month   each org's spend and paid calls per calendar month (UTC), added to by a trigger on every
--                        ledger row inserted, in the ledger write's own transaction. A budget check reads one row.
--                        Only paid calls write here, a few per second at a provider's pace, so one row per org and
--                        month is updated in place; the worker writes a batch's orgs in one order, so two batches
--                        take these rows' locks in the same order.

CREATE TABLE org_conflict_counts (
    org_id      uuid            NOT NULL,
    -- The pair counted into (n added), or null when the row only counts out.
    into_state  synthesis_state,
    into_status inbox_status,
    -- The pair counted out of (n taken away), or null when the row only counts in.
    out_state   synthesis_state,
    out_status  inbox_status,
    n           bigint          NOT NULL,
    CONSTRAINT org_conflict_counts_pairs_whole
        CHECK ((into_state IS NULL) = (into_status IS NULL) AND (out_state IS NULL) = (out_status IS NULL)),
    CONSTRAINT org_conflict_counts_counts_something CHECK (into_state IS NOT NULL OR out_state IS NOT NULL)
);

CREATE INDEX org_conflict_counts_org ON org_conflict_counts (org_id);

-- The state a conflict is counted in: its own, but pending while it is in progress.
CREATE FUNCTION counted_state(state synthesis_state) RETURNS synthesis_state
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN state = 'in_progress' THEN 'pending' ELSE state END::synthesis_state $$;

-- An org's counts as pairs: the sum of its rows, every pair with none left out (pending includes in progress).
-- Row-level security applies as the caller's (security_invoker), so an org's scope sees its own counts only.
CREATE VIEW org_conflict_totals WITH (security_invoker = true) AS
SELECT org_id, synthesis_state, inbox_status, sum(n)::bigint AS n
  FROM (SELECT org_id, into_state AS synthesis_state, into_status AS inbox_status, n
          FROM org_conflict_counts WHERE into_state IS NOT NULL
        UNION ALL
        SELECT org_id, out_state, out_status, -n
          FROM org_conflict_counts WHERE out_state IS NOT NULL) AS moves
 GROUP BY org_id, synthesis_state, inbox_status
HAVING sum(n) <> 0;

CREATE FUNCTION count_conflict_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
        VALUES (NEW.org_id, counted_state(NEW.synthesis_state), NEW.inbox_status, 1);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO org_conflict_counts (org_id, out_state, out_status, n)
        VALUES (OLD.org_id, counted_state(OLD.synthesis_state), OLD.inbox_status, 1);
    ELSIF OLD.org_id = NEW.org_id THEN
        INSERT INTO org_conflict_counts (org_id, into_state, into_status, out_state, out_status, n)
        VALUES (NEW.org_id, counted_state(NEW.synthesis_state), NEW.inbox_status,
                counted_state(OLD.synthesis_state), OLD.inbox_status, 1);
    ELSE
        INSERT INTO org_conflict_counts (org_id, out_state, out_status, n)
        VALUES (OLD.org_id, counted_state(OLD.synthesis_state), OLD.inbox_status, 1);
        INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
        VALUES (NEW.org_id, counted_state(NEW.synthesis_state), NEW.inbox_status, 1);
    END IF;
    RETURN NULL;
END
$$;

-- Row triggers, with the update's filter in WHEN, which the server checks without calling the function: an update
-- that moves no conflict between counted pairs (a claim, a lease handed back or renewed, a note written) costs
-- nothing here. The CASE is counted_state written out, which WHEN evaluates without a function call.
-- One move is left to the statements that make it: in progress to done, in the same org and inbox status, which
-- only the worker's store statements make (ConflictLeases' store_merge.sql and store_merge_with_calls.sql). They
-- write its count row themselves, for about half the trigger's cost on every merge. ConflictCountsExactTest and
-- db recount's drift check hold them to it.
CREATE TRIGGER policy_conflicts_count_insert
    AFTER INSERT ON policy_conflicts
    FOR EACH ROW EXECUTE FUNCTION count_conflict_change();
CREATE TRIGGER policy_conflicts_count_update
    AFTER UPDATE OF org_id, synthesis_state, inbox_status ON policy_conflicts
    FOR EACH ROW
    WHEN (((CASE WHEN OLD.synthesis_state = 'in_progress' THEN 'pending' ELSE OLD.synthesis_state END)
               IS DISTINCT FROM (CASE WHEN NEW.synthesis_state = 'in_progress' THEN 'pending'
                                      ELSE NEW.synthesis_state END)
           OR OLD.inbox_status IS DISTINCT FROM NEW.inbox_status
           OR OLD.org_id IS DISTINCT FROM NEW.org_id)
          AND NOT (OLD.synthesis_state = 'in_progress' AND NEW.synthesis_state = 'done'
                   AND OLD.inbox_status = NEW.inbox_status AND OLD.org_id = NEW.org_id))
    EXECUTE FUNCTION count_conflict_change();
CREATE TRIGGER policy_conflicts_count_delete
    AFTER DELETE ON policy_conflicts
    FOR EACH ROW EXECUTE FUNCTION count_conflict_change();

-- TRUNCATE fires no row trigger: the counts go with the rows they count. A DELETE, not a TRUNCATE, so that a
-- TRUNCATE naming both tables does not fail on the one it is already emptying.
CREATE FUNCTION forget_conflict_counts() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM org_conflict_counts;
    RETURN NULL;
END
$$;
CREATE TRIGGER policy_conflicts_count_truncate
    AFTER TRUNCATE ON policy_conflicts
    FOR EACH STATEMENT EXECUTE FUNCTION forget_conflict_counts();

-- The counts of the conflicts already stored, taken while no conflict can change.
LOCK TABLE policy_conflicts IN SHARE MODE;
INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
  FROM policy_conflicts
 GROUP BY org_id, counted_state(synthesis_state), inbox_status;

ALTER TABLE org_conflict_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_conflict_counts FORCE ROW LEVEL SECURITY;
CREATE POLICY org_conflict_counts_org_isolation ON org_conflict_counts
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

-- Counts are written by the triggers, as whoever changes the conflict; only the fold (the sweep identity, across
-- orgs) deletes the rows it sums.
GRANT SELECT, INSERT ON org_conflict_counts TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT DELETE ON org_conflict_counts TO merge_synthesis_sweep;
GRANT SELECT ON org_conflict_totals TO merge_synthesis_tenant, merge_synthesis_sweep;

CREATE TABLE org_spend_by_month (
    org_id   uuid          NOT NULL,
    -- The first day of the month (UTC) of the calls counted here.
    month    date          NOT NULL,
    cost_usd numeric(18,9) NOT NULL CHECK (cost_usd >= 0),
    calls    bigint        NOT NULL CHECK (calls >= 0),
    PRIMARY KEY (org_id, month)
);

-- A ledger row's month, as the service reckons months everywhere (UsageLedger's month_start.sql).
CREATE FUNCTION ledger_month(at timestamptz) RETURNS date
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT date_trunc('month', at AT TIME ZONE 'UTC')::date $$;

CREATE FUNCTION add_to_org_month_spend() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_spend_by_month AS s (org_id, month, cost_usd, calls)
    VALUES (NEW.org_id, ledger_month(NEW.created_at), NEW.cost_usd, 1)
    ON CONFLICT (org_id, month)
        DO UPDATE SET cost_usd = s.cost_usd + excluded.cost_usd, calls = s.calls + 1;
    RETURN NULL;
END
$$;

-- Inserts only: a ledger row's cost is never updated (only its outcome is), and the ledger is insert-only.
CREATE TRIGGER llm_usage_events_month_total
    AFTER INSERT ON llm_usage_events
    FOR EACH ROW EXECUTE FUNCTION add_to_org_month_spend();

LOCK TABLE llm_usage_events IN SHARE MODE;
INSERT INTO org_spend_by_month (org_id, month, cost_usd, calls)
SELECT org_id, ledger_month(created_at), sum(cost_usd), count(*)
  FROM llm_usage_events
 GROUP BY org_id, ledger_month(created_at);

ALTER TABLE org_spend_by_month ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_spend_by_month FORCE ROW LEVEL SECURITY;
CREATE POLICY org_spend_by_month_org_isolation ON org_spend_by_month
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

GRANT SELECT, INSERT, UPDATE ON org_spend_by_month TO merge_synthesis_tenant, merge_synthesis_sweep;

-- The budget check reads the org's row for this month instead of summing its ledger (schema 8's function, same
-- name and meaning, so the worker's read-back is unchanged).
CREATE OR REPLACE FUNCTION org_month_spend(org uuid) RETURNS numeric
    LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    RETURN coalesce((SELECT s.cost_usd FROM org_spend_by_month s
                      WHERE s.org_id = org AND s.month = ledger_month(now())), 0);
END
$$;
