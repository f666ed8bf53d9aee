-- merge-synthesis schema, version 5: marked conflicts can be re-queued.
--
--   synthesis_requeued            an event type: a conflict marked synthesis_max_attempts_exceeded was put back to
--                                 pending by an operator or an org's admin, with who asked and why it had failed.
--   policy_conflicts_marked       the marked rows alone, by org and last failure reason: a re-queue finds its next
--                                 batch in one index range however many finished conflicts lie beside them, and
--                                 the rows it re-queued drop out of the index as it goes.

ALTER TABLE conflict_events DROP CONSTRAINT conflict_events_event_type_check;
ALTER TABLE conflict_events ADD CONSTRAINT conflict_events_event_type_check
    CHECK (event_type IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                          'conflict_acknowledged', 'conflict_resolved', 'synthesis_requeued'));

CREATE INDEX policy_conflicts_marked ON policy_conflicts (org_id, last_failure_reason)
    WHERE synthesis_state = 'max_attempts_exceeded';
