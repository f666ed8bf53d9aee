-- Per :unit (a date_trunc field, buckets :step apart) from :since to :now, across orgs: merges stored, attempts
-- failed, attempts deferred, and spend, in UTC; a bucket with nothing in it is a row of zeros.
WITH buckets AS (
    SELECT generate_series(date_trunc(:unit, CAST(:since AS timestamptz), 'UTC'),
                           date_trunc(:unit, CAST(:now AS timestamptz), 'UTC'), CAST(:step AS interval)) AS bucket),
merges AS (
    SELECT date_trunc(:unit, occurred_at, 'UTC') AS bucket, count(*) AS n FROM conflict_events
     WHERE event_type = 'merge_synthesized' AND occurred_at >= :since GROUP BY 1),
endings AS (
    SELECT date_trunc(:unit, finished_at, 'UTC') AS bucket,
           count(*) FILTER (WHERE outcome IN ('transient_failure', 'permanent_failure')) AS failures,
           count(*) FILTER (WHERE outcome = 'deferred') AS deferrals
      FROM synthesis_attempt_history WHERE finished_at >= :since GROUP BY 1),
spend AS (
    SELECT date_trunc(:unit, created_at, 'UTC') AS bucket, sum(cost_usd) AS usd FROM llm_usage_events
     WHERE created_at >= :since GROUP BY 1)
SELECT m.bucket, coalesce(g.n, 0) AS merges, coalesce(e.failures, 0) AS failures,
       coalesce(e.deferrals, 0) AS deferrals, coalesce(s.usd, 0) AS spend
  FROM buckets m
  LEFT JOIN merges g USING (bucket)
  LEFT JOIN endings e USING (bucket)
  LEFT JOIN spend s USING (bucket)
 ORDER BY m.bucket
