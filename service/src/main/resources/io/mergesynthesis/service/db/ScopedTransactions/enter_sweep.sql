-- Enters the sweep role (:role) with row-level security off, for this transaction alone (set_config's third
-- argument): a statement after it sees every org's rows, or fails rather than filtering them if it could not.
SELECT set_config('role', :role, true), set_config('row_security', 'off', true)
