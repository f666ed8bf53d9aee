-- The org of conflict :id, for a caller that may act on any org's conflicts. Runs cross-tenant.
SELECT org_id FROM policy_conflicts WHERE id = :id
