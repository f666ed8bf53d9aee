-- The lease-table shape: leases in a narrow table of their own, and the claimable index over pending rows
-- only (a leased conflict stays pending in policy_conflicts). Applied to a copy of the current database.
CREATE TABLE synthesis_leases (
    conflict_id uuid PRIMARY KEY,
    org_id      uuid        NOT NULL,
    owner       text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    attempts    integer     NOT NULL
);
CREATE INDEX synthesis_leases_expiry ON synthesis_leases (expires_at);
DROP INDEX policy_conflicts_leases_by_expiry;
DROP INDEX policy_conflicts_claimable;
CREATE INDEX policy_conflicts_claimable ON policy_conflicts (not_before) WHERE synthesis_state = 'pending';
ALTER TABLE synthesis_leases ENABLE ROW LEVEL SECURITY;
ALTER TABLE synthesis_leases FORCE ROW LEVEL SECURITY;
CREATE POLICY synthesis_leases_org_isolation ON synthesis_leases USING (org_id = current_org_id()) WITH CHECK (org_id = current_org_id());
GRANT SELECT, INSERT, UPDATE, DELETE ON synthesis_leases TO merge_synthesis_tenant, merge_synthesis_sweep;
