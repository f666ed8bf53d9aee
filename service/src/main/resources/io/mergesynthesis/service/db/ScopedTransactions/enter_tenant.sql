-- Enters the tenant role (:role) scoped to org :org ('' for none), for this transaction alone. row_security is
-- set on as well as left alone: a transaction that went cross-tenant before this must be held by row-level
-- security again.
SELECT set_config('role', :role, true), set_config('row_security', 'on', true),
       set_config('app.org_id', CAST(:org AS text), true)
