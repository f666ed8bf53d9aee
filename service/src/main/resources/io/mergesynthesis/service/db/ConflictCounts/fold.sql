-- Sums the count rows of up to :maxOrgs orgs that have more rows than pairs (changes not yet folded) into one row per
-- pair, dropping pairs that sum to none. One statement, so a reader sees the org's rows before or after, never
-- half. Rows a concurrent change adds after this statement began are not seen, and stay for the next fold; a
-- concurrent fold of the same org deletes each row once, as a row deleted by the other is skipped.
-- Orgs are taken in order after :after (null to start), up the index by org, so that folding a large backlog reads
-- each row once over all its statements rather than every row in each. The one row returned is how many orgs were
-- folded (fewer than :maxOrgs when none is left after :after) and the last of them, where the next one starts.
WITH unfolded AS (
    SELECT org_id
      FROM org_conflict_counts
     WHERE org_id > coalesce(CAST(:after AS uuid), '00000000-0000-0000-0000-000000000000')
     GROUP BY org_id
    HAVING bool_or(out_state IS NOT NULL) OR count(*) > count(DISTINCT (into_state, into_status))
     ORDER BY org_id
     LIMIT :maxOrgs),
taken AS (
    DELETE FROM org_conflict_counts c USING unfolded u
     WHERE c.org_id = u.org_id
    RETURNING c.org_id, c.into_state, c.into_status, c.out_state, c.out_status, c.n),
sums AS (
    SELECT org_id, synthesis_state, inbox_status, sum(n) AS n
      FROM (SELECT org_id, into_state AS synthesis_state, into_status AS inbox_status, n
              FROM taken WHERE into_state IS NOT NULL
            UNION ALL
            SELECT org_id, out_state, out_status, -n FROM taken WHERE out_state IS NOT NULL) AS moves
     GROUP BY org_id, synthesis_state, inbox_status
    HAVING sum(n) <> 0),
written AS (
    INSERT INTO org_conflict_counts (org_id, into_state, into_status, n)
    SELECT org_id, synthesis_state, inbox_status, n FROM sums)
SELECT (SELECT count(*) FROM unfolded) AS folded,
       (SELECT org_id FROM unfolded ORDER BY org_id DESC LIMIT 1) AS last_org
