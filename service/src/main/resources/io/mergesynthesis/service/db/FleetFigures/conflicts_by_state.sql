-- How many conflicts are in each synthesis state, across orgs.
SELECT synthesis_state, count(*) AS n FROM policy_conflicts GROUP BY synthesis_state
