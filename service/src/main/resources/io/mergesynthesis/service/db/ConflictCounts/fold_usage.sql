-- Sums the usage rows of up to :maxOrgs org months that have more than one row per model into one row per model,
-- as fold.sql does for the conflict counts and under the same turn (lock_folding.sql): one statement, so a reader
-- sees an org's month before or after, never half; a row added after the statement began stays for the next fold.
-- The one row returned is how many org months were folded.
WITH unfolded AS (
    SELECT org_id, month
      FROM org_usage_by_month
     GROUP BY org_id, month
    HAVING count(*) > count(DISTINCT (provider, model))
     LIMIT :maxOrgs),
taken AS (
    DELETE FROM org_usage_by_month u USING unfolded f
     WHERE u.org_id = f.org_id AND u.month = f.month
    RETURNING u.*),
written AS (
    INSERT INTO org_usage_by_month (org_id, month, provider, model, calls, input_tokens, output_tokens,
                                    cache_read_tokens, cache_write_tokens, cost_usd)
    SELECT org_id, month, provider, model, sum(calls), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
      FROM taken
     GROUP BY org_id, month, provider, model)
SELECT count(*) FROM unfolded
