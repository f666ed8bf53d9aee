-- Every replica that beat lately, the longest running first.
SELECT replica_id, host, version, started_at, interval_ms, workers, in_flight, last_claim_at, beat_at, stopped_at,
       providers::text AS providers
  FROM replica_heartbeats
 ORDER BY started_at, replica_id
