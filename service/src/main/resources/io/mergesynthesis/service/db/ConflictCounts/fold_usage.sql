-- Sums the usage rows of up to :maxOrgs orgs that have more than one row per month, model and lane into one row
-- per month, model and lane, as fold.sql does for the conflict counts and under the same turn (lock_folding.sql): one statement, so
-- a reader sees an org's months before or after, never half; a row added after the statement began stays for the
-- next fold. Orgs are taken in order after :after (null to start), up the index by org and month. The one row
-- returned is how many orgs were folded and the last of them.
WITH unfolded AS (
    SELECT org_id
      FROM org_usage_by_month
     WHERE org_id > coalesce(CAST(:after AS uuid), '00000000-0000-0000-0000-000000000000')
     GROUP BY org_id
    HAVING count(*) > count(DISTINCT (month, provider, model, lane))
     ORDER BY org_id
     LIMIT :maxOrgs),
taken AS (
    DELETE FROM org_usage_by_month u USING unfolded f
     WHERE u.org_id = f.org_id
    RETURNING u.*),
written AS (
    INSERT INTO org_usage_by_month (org_id, month, provider, model, lane, calls, input_tokens, output_tokens,
                                    cache_read_tokens, cache_write_tokens, cost_usd)
    SELECT org_id, month, provider, model, lane, sum(calls), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
      FROM taken
     GROUP BY org_id, month, provider, model, lane)
SELECT (SELECT count(*) FROM unfolded) AS folded,
       (SELECT org_id FROM unfolded ORDER BY org_id DESC LIMIT 1) AS last_org
