-- Whether this transaction may fold: one fold at a time across replicas, the others skip their turn. The key is
-- the text 'org_conflict_counts' hashed, a number no other lock of the service uses.
SELECT pg_try_advisory_xact_lock(hashtext('org_conflict_counts'))
