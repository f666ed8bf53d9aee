-- Eight new pending conflicts for each conflict a benchmark run left behind: the same orgs, rules and merges'
-- sizes as the benchmark's, new ids and dedup keys. Run once, on a database of its own.
TRUNCATE conflict_events;
INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, received_at)
SELECT gen_random_uuid(), org_id, dedup_key || '/copy-' || g, action, target, rules, winner_policy_id, detected_at,
       clock_timestamp()
FROM policy_conflicts, generate_series(1, 8) g;
