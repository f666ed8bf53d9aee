-- Turns a tenant transaction cross-tenant for the statements after this: the sweep role (:role), row-level
-- security off, no org.
SELECT set_config('role', :role, true), set_config('row_security', 'off', true), set_config('app.org_id', '', true)
