-- merge-synthesis schema, version 19: the kept figures of schemas 14, 17 and 18 written once per statement for
-- the rows it inserts or deletes, not once per row (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
-- A row trigger runs its function, and its inserts, for every row. A statement that writes many rows (a bulk
-- load with COPY, a backlog imported in one INSERT, a purge) then wrote one count row per conflict, and one
-- upsert of the org's month of spend per provider call, each call's upsert holding that row until the statement's
-- transaction ended. A statement trigger sees the statement's rows as a transition table and writes one count row
-- per org and pair, one spend row per org and month, one usage row per org, month and model, and the search keys
-- of all its conflicts in one insert. A statement of one row (the ingest of one report, the ledger rows of one
-- attempt) writes what it wrote before. A statement that inserts no row (a report already stored) writes nothing.
--
-- Only inserts and deletes move here. An update keeps its row trigger of schema 14, whose WHEN the server checks
-- without calling a function, so that a claim, a renewal or a lease handed back costs nothing; a trigger with
-- transition tables can have no WHEN, and would run for every claim.
--
-- A transition table holds only the rows the statement inserted: for an INSERT ... ON CONFLICT DO UPDATE (the
-- ledger row an attempt writes again to settle its outcome), a row that already existed is not in it, as it never
-- fired the insert row trigger. Spend rows are upserted in order of org and month, so two statements that touch
-- the same orgs take these rows' locks in one order.

DROP TRIGGER policy_conflicts_count_insert ON policy_conflicts;
DROP TRIGGER policy_conflicts_count_delete ON policy_conflicts;
DROP TRIGGER policy_conflicts_search_keys ON policy_conflicts;
DROP TRIGGER llm_usage_events_month_total ON llm_usage_events;
DROP FUNCTION keep_conflict_search_keys();
DROP FUNCTION add_to_org_month_spend();

-- The update trigger keeps count_conflict_change(); it only ever sees updates now.
CREATE OR REPLACE FUNCTION count_conflict_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF OLD.org_id = NEW.org_id THEN
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

CREATE FUNCTION count_conflicts_added() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
    SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
      FROM added
     GROUP BY org_id, counted_state(synthesis_state), inbox_status;
    INSERT INTO conflict_search_keys (org_id, search_key, conflict_id)
    SELECT DISTINCT a.org_id, left(k.k, 200), a.id
      FROM added a,
           LATERAL (SELECT a.target
                    UNION ALL SELECT a.dedup_key
                    UNION ALL SELECT r ->> 'policy_id' FROM jsonb_array_elements(a.rules) AS r) AS k (k)
     WHERE k.k IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE FUNCTION count_conflicts_removed() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_conflict_counts (org_id, out_state, out_status, n)
    SELECT org_id, counted_state(synthesis_state), inbox_status, count(*)
      FROM removed
     GROUP BY org_id, counted_state(synthesis_state), inbox_status;
    DELETE FROM conflict_search_keys k
     USING removed r
     WHERE k.org_id = r.org_id AND k.conflict_id = r.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER policy_conflicts_added
    AFTER INSERT ON policy_conflicts
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION count_conflicts_added();
CREATE TRIGGER policy_conflicts_removed
    AFTER DELETE ON policy_conflicts
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION count_conflicts_removed();

-- Ledger rows are only inserted with their cost (an update settles a row's outcome, never its cost), so only
-- inserts add to the month's spend and usage.
CREATE FUNCTION add_calls_to_org_month() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_spend_by_month AS s (org_id, month, cost_usd, calls)
    SELECT org_id, ledger_month(created_at), sum(cost_usd), count(*)
      FROM recorded
     GROUP BY org_id, ledger_month(created_at)
     ORDER BY org_id, ledger_month(created_at)
    ON CONFLICT (org_id, month)
        DO UPDATE SET cost_usd = s.cost_usd + excluded.cost_usd, calls = s.calls + excluded.calls;
    INSERT INTO org_usage_by_month (org_id, month, provider, model, calls, input_tokens, output_tokens,
                                    cache_read_tokens, cache_write_tokens, cost_usd)
    SELECT org_id, ledger_month(created_at), provider, model, count(*), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
      FROM recorded
     GROUP BY org_id, ledger_month(created_at), provider, model;
    RETURN NULL;
END
$$;

CREATE TRIGGER llm_usage_events_month_total
    AFTER INSERT ON llm_usage_events
    REFERENCING NEW TABLE AS recorded
    FOR EACH STATEMENT EXECUTE FUNCTION add_calls_to_org_month();
