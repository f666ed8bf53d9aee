-- How many conflicts are in each synthesis state, across orgs, from the counts kept per org (schema 14).
SELECT synthesis_state, sum(n)::bigint AS n FROM org_conflict_totals GROUP BY synthesis_state
