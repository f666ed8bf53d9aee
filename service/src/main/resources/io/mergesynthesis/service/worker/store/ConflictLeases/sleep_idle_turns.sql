-- Puts to sleep the turns of orgs with nothing pending left, among the :most waiting turns of lowest pass, so that
-- the claim after it in the batch walks only orgs that have work (schema 26). Runs cross-tenant.
SELECT sleep_idle_org_turns(:most)
