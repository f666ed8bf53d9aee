-- Every conflict back to pending, as ingest leaves it, and no events: the start of each timed run.
UPDATE policy_conflicts SET synthesis_state='pending', suggested_merge=NULL, synthesized_at=NULL, lease_owner=NULL, lease_expires_at=NULL, not_before=received_at, attempts=0, last_failure_reason=NULL;
TRUNCATE conflict_events;
