-- merge-synthesis schema, version 26: fair claims, an equal share of the calls for every org with conflicts
-- waiting, weighted (docs/adr/0069-fair-claims-by-start-tags.md).
--
-- Start-time fair queueing, with its tags kept on the leases: a claim gives each conflict it takes a tag, its
-- org's place in the fair order, and writes it on the conflict's own row, which the claim writes anyway. An org's
-- next tag follows the highest tag among its conflicts in flight or done, by 1 / its weight a conflict, and never
-- starts below the highest such tag among the orgs waiting. So no claim writes a row another claim writes, and the claims of every
-- replica read one picture.

ALTER TABLE org_synthesis_settings
    ADD COLUMN weight integer NOT NULL DEFAULT 1 CONSTRAINT org_synthesis_settings_weight_check
        CHECK (weight BETWEEN 1 AND 1000);

-- A constant default: no table rewrite, and conflicts never claimed read as 0.
ALTER TABLE policy_conflicts ADD COLUMN claim_tag double precision NOT NULL DEFAULT 0;

-- The pending conflicts of an org, oldest first: where the claim finds each waiting org and its oldest conflict
-- (one descent per org), takes an org's next conflicts, and where a conflict's page counts those ahead of it.
CREATE INDEX policy_conflicts_pending_by_org ON policy_conflicts (org_id, not_before)
    WHERE synthesis_state = 'pending';

-- The tags of an org's conflicts in flight and done: one descent finds the highest, its last start in the fair
-- order. Done conflicts keep theirs, so that an org whose last conflict in flight has just ended goes on from
-- where it was rather than level with the others: with few workers that happens at almost every call.
CREATE INDEX policy_conflicts_claim_tags_by_org ON policy_conflicts (org_id, claim_tag)
    WHERE synthesis_state IN ('in_progress', 'done');

-- The claim no longer reads the pending rows of every org in one order, and the index that served it goes. Its
-- last readers (when the next lease ends, how many rows wait) read policy_conflicts_leases_by_expiry and the
-- index above. Left in place, it would be what the planner takes for one org's pending rows whenever the table's
-- statistics date from a moment with nothing pending (a drained table, then a tenant's import): every partial
-- index then looks empty, and this one, read whole with a filter on the org, looks cheapest.
DROP INDEX policy_conflicts_claimable;
