-- One heartbeat of replica :replica: its row written afresh, and in the same statement every row silent for ten of
-- its own intervals (a replica long gone) deleted.
WITH gone AS (
    DELETE FROM replica_heartbeats
     WHERE replica_id <> :replica AND beat_at < CAST(:now AS timestamptz) - interval_ms * 10 * interval '1 millisecond')
INSERT INTO replica_heartbeats AS r (replica_id, host, version, started_at, interval_ms, workers, in_flight,
                                     last_claim_at, beat_at, stopped_at, providers)
VALUES (:replica, :host, :version, :startedAt, :intervalMs, :workers, :inFlight, :lastClaimAt, :now, :stoppedAt,
        CAST(:providers AS jsonb))
ON CONFLICT (replica_id) DO UPDATE
   SET workers = excluded.workers, in_flight = excluded.in_flight, last_claim_at = excluded.last_claim_at,
       beat_at = excluded.beat_at, stopped_at = excluded.stopped_at, providers = excluded.providers,
       interval_ms = excluded.interval_ms
