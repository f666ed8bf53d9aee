-- merge-synthesis schema, version 26: fair claims, an equal share of the calls for every org with conflicts
-- waiting, weighted (docs/adr/0069-fair-claims-by-each-orgs-pass.md).
--
-- Each org with pending conflicts has a turn: a row of org_claim_turns whose pass counts the conflicts claimed for
-- it, each worth 1 / the org's weight. A claim serves the waiting orgs of lowest pass first, oldest conflict first
-- within an org, and moves their pass on by what it took. An org that starts waiting again takes the lowest pass
-- of those waiting, so it cannot bank what it did not use while it had nothing to do, and is served within a
-- round. The pass lives here, not in a replica, so the shares hold across replicas.
--
-- Who writes a turn: the triggers below wake it (waiting) when a conflict of its org becomes pending; the claim
-- moves its pass on; sleep_idle_org_turns() puts it to sleep (not waiting) once its org has nothing pending, so
-- that the claim's walk over the waiting orgs does not pass drained ones. Sleeping and waking meet on the turn's
-- row lock: a waker holds FOR KEY SHARE on an awake turn until it commits, which the claim's own update
-- (FOR NO KEY UPDATE) does not wait for, and the sleeper takes FOR UPDATE, which it does.

ALTER TABLE org_synthesis_settings
    ADD COLUMN weight integer NOT NULL DEFAULT 1 CONSTRAINT org_synthesis_settings_weight_check
        CHECK (weight BETWEEN 1 AND 1000);

-- Every claim moves the pass of the orgs it served, so a turn is rewritten many times a second. The pass is in
-- no index, so that each rewrite is a heap-only update that leaves no index entry behind, with room left on the
-- page for it: an index ordered by pass would gain an entry per claim, and the claim's walk from the lowest pass
-- would step over the dead ones left since the last vacuum. The walk reads the waiting turns whole instead, found
-- through a partial index of the waiting orgs (changed only when a turn wakes or sleeps), one row per org with
-- work, and keeps those of lowest pass.
CREATE TABLE org_claim_turns (
    org_id uuid PRIMARY KEY,
    pass double precision NOT NULL,
    waiting boolean NOT NULL
) WITH (fillfactor = 50);
CREATE INDEX org_claim_turns_waiting ON org_claim_turns (org_id) WHERE waiting;
-- No policy: a turn says how much of the provider an org was given, nothing of what it holds; the tenant role
-- reaches it only through the triggers, which run as the owner.
GRANT SELECT, UPDATE ON org_claim_turns TO merge_synthesis_sweep;

-- The pending conflicts of an org, oldest first: where the claim takes an org's next conflicts and where a
-- conflict's page counts those ahead of it.
CREATE INDEX policy_conflicts_pending_by_org ON policy_conflicts (org_id, not_before)
    WHERE synthesis_state = 'pending';

-- Wakes the turn of org: waiting again, at the lowest pass among the waiting (its own when none waits). An awake
-- turn is only locked FOR KEY SHARE until the waker commits, so that a sleeper cannot put it to sleep over the
-- conflict that woke it; the claims' updates do not wait for that lock.
CREATE FUNCTION wake_org_turn(org uuid) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
DECLARE
    lowest double precision;
BEGIN
    PERFORM 1 FROM org_claim_turns WHERE org_id = org AND waiting FOR KEY SHARE;
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT min(pass) INTO lowest FROM org_claim_turns WHERE waiting;
    UPDATE org_claim_turns SET waiting = true, pass = coalesce(lowest, pass) WHERE org_id = org AND NOT waiting;
    IF NOT FOUND THEN
        INSERT INTO org_claim_turns (org_id, pass, waiting) VALUES (org, coalesce(lowest, 0), true)
        ON CONFLICT (org_id) DO NOTHING;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION wake_org_turn(uuid) FROM PUBLIC;
-- For db recount, which wakes the turns of orgs whose conflicts were written behind the triggers' back.
GRANT EXECUTE ON FUNCTION wake_org_turn(uuid) TO merge_synthesis_sweep;

-- New pending conflicts wake their orgs' turns, in org order, so that two inserts take the rows in one order.
CREATE FUNCTION wake_turns_of_added() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
DECLARE
    org uuid;
BEGIN
    FOR org IN SELECT DISTINCT org_id FROM added WHERE synthesis_state = 'pending' ORDER BY org_id LOOP
        PERFORM wake_org_turn(org);
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER policy_conflicts_turns_added AFTER INSERT ON policy_conflicts
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION wake_turns_of_added();

-- A conflict pending again (a retry, a hand-back, a re-queue, a budget that allows it again) wakes its org's turn.
-- The claim's move from pending to in progress does not fire it.
CREATE FUNCTION wake_turn_of_row() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    PERFORM wake_org_turn(NEW.org_id);
    RETURN NULL;
END
$$;
CREATE TRIGGER policy_conflicts_turns_pending_again AFTER UPDATE OF synthesis_state ON policy_conflicts
    FOR EACH ROW WHEN (NEW.synthesis_state::text = 'pending' AND OLD.synthesis_state::text <> 'pending')
    EXECUTE FUNCTION wake_turn_of_row();

CREATE FUNCTION forget_org_turns() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp
AS $$
BEGIN
    UPDATE org_claim_turns SET waiting = false WHERE waiting;
    RETURN NULL;
END
$$;
CREATE TRIGGER policy_conflicts_turns_truncate AFTER TRUNCATE ON policy_conflicts
    FOR EACH STATEMENT EXECUTE FUNCTION forget_org_turns();

-- Puts to sleep the turns, among the `most` waiting ones of lowest pass, whose org has no pending conflict left;
-- returns how many. Runs with the caller's rights, cross-tenant (the sweep role, row security off), in the
-- claim's batch. Two statements, so two snapshots: the first locks the turns that look idle FOR UPDATE (a turn a
-- claim or a waker holds is skipped, left for next time), the second looks again once they are locked, and sees
-- every conflict whose waker committed before the lock.
CREATE FUNCTION sleep_idle_org_turns(most integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE
    SET search_path = public, pg_temp
AS $$
DECLARE
    idle uuid[];
    slept integer;
BEGIN
    SELECT array_agg(org_id) INTO idle FROM (
        SELECT t.org_id
        FROM (SELECT org_id FROM org_claim_turns WHERE waiting ORDER BY pass, org_id LIMIT most) lowest
        JOIN org_claim_turns t ON t.org_id = lowest.org_id
        WHERE NOT EXISTS (SELECT 1 FROM policy_conflicts p
                          WHERE p.org_id = t.org_id AND p.synthesis_state = 'pending')
        ORDER BY t.org_id
        FOR UPDATE OF t SKIP LOCKED) looks_idle;
    IF idle IS NULL THEN
        RETURN 0;
    END IF;
    UPDATE org_claim_turns t SET waiting = false
    WHERE t.org_id = ANY (idle) AND t.waiting
      AND NOT EXISTS (SELECT 1 FROM policy_conflicts p WHERE p.org_id = t.org_id AND p.synthesis_state = 'pending');
    GET DIAGNOSTICS slept = ROW_COUNT;
    RETURN slept;
END
$$;
REVOKE ALL ON FUNCTION sleep_idle_org_turns(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sleep_idle_org_turns(integer) TO merge_synthesis_sweep;

-- The orgs with pending conflicts today, all at the same pass.
INSERT INTO org_claim_turns (org_id, pass, waiting)
SELECT DISTINCT org_id, 0, true FROM policy_conflicts WHERE synthesis_state = 'pending';
