-- merge-synthesis schema, version 6: leases found by their expiry.
--
--   policy_conflicts_leases_by_expiry   the rows under a lease, by when the lease ends. The claim takes expired
--                                       leases before pending rows (a conflict whose holder died goes ahead of
--                                       the backlog queued while it was held); this index finds them in one
--                                       short range however long the backlog is, and holds no more entries than
--                                       there are workers holding leases.

CREATE INDEX policy_conflicts_leases_by_expiry ON policy_conflicts (lease_expires_at)
    WHERE synthesis_state = 'in_progress';
