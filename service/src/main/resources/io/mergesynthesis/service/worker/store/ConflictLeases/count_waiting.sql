-- Rows waiting for synthesis (pending, or under a lease), counted up to :cap each, so that a huge backlog costs
-- no more than :cap index entries of each kind to report. Runs cross-tenant; the pending rows are counted on
-- policy_conflicts_pending_by_org, those under a lease on policy_conflicts_leases_by_expiry.
SELECT least(:cap,
             (SELECT count(*) FROM (
                  SELECT 1 FROM policy_conflicts WHERE synthesis_state = 'pending' LIMIT :cap) pending)
             + (SELECT count(*) FROM (
                  SELECT 1 FROM policy_conflicts WHERE synthesis_state = 'in_progress' LIMIT :cap) leased))
