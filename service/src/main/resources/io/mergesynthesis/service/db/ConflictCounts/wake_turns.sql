-- Wakes the claim turn (schema 26) of every org with a pending conflict, as the triggers would have: conflicts
-- written behind the triggers' back (a hand-made load with triggers off) would otherwise never be claimed.
-- Returns how many orgs have one. Runs cross-tenant; a turn already waiting is left as it is.
SELECT count(wake_org_turn(o.org_id))
FROM (SELECT DISTINCT org_id FROM policy_conflicts WHERE synthesis_state = 'pending' ORDER BY org_id) o
