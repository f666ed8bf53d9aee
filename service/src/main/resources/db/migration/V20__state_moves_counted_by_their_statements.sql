-- merge-synthesis schema, version 20: the worker's state moves counted by the statements that make them, so that a
-- claim and a store never reach the count trigger (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
-- Schema 14's update trigger listed synthesis_state among its columns, so every claim and every store had the
-- server evaluate its WHEN, although that WHEN is false for both: a cost paid twice for each conflict drained.
-- From here the trigger fires only for a statement that sets org_id or inbox_status (an admin's acknowledgement
-- or resolution, which are rare beside the drain), and counts such a statement's whole move, its state included.
-- A statement that changes a conflict's synthesis state without setting either column writes the count row of
-- its move itself, as the store statements have since schema 14:
--   park.sql (in progress to waiting_budget or not_needed), mark_permanent.sql (to max_attempts_exceeded),
--   resume_waiting.sql (waiting_budget to pending) and requeue.sql (max_attempts_exceeded to pending).
-- The claim, the hand-back and the release for a retry move a conflict between pending and in progress, which the
-- counts do not tell apart, so they write nothing. StateMovesCountedTest runs each statement and
-- ConflictCountsExactTest runs them all at once against a count of the rows; db recount repairs counts that an
-- update by hand (outside these statements) left behind, and its drift check names them.

DROP TRIGGER policy_conflicts_count_update ON policy_conflicts;
CREATE TRIGGER policy_conflicts_count_update
    AFTER UPDATE OF org_id, inbox_status ON policy_conflicts
    FOR EACH ROW
    WHEN ((CASE WHEN OLD.synthesis_state = 'in_progress' THEN 'pending' ELSE OLD.synthesis_state END)
              IS DISTINCT FROM (CASE WHEN NEW.synthesis_state = 'in_progress' THEN 'pending'
                                     ELSE NEW.synthesis_state END)
          OR OLD.inbox_status IS DISTINCT FROM NEW.inbox_status
          OR OLD.org_id IS DISTINCT FROM NEW.org_id)
    EXECUTE FUNCTION count_conflict_change();
