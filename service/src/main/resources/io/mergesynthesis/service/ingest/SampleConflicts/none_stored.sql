-- Whether no conflict of any org is stored yet: the samples go only into an empty database.
SELECT NOT EXISTS (SELECT 1 FROM policy_conflicts)
