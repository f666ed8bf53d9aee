-- merge-synthesis schema, version 11: the attempt history says when a marked conflict was given another chance.
--
--   synthesis_attempt_history.outcome  gains 'requeued': a line written with the re-queue itself, naming who asked
--                                      (a token's role and id, or the operator's command), so that a conflict's
--                                      history reads its old failures, then the re-queue, then the new attempts.
--                                      Such a line counts towards nothing; its attempt is 0, where the count
--                                      starts again.

ALTER TABLE synthesis_attempt_history DROP CONSTRAINT synthesis_attempt_history_outcome_check;
ALTER TABLE synthesis_attempt_history ADD CONSTRAINT synthesis_attempt_history_outcome_check
    CHECK (outcome IN ('transient_failure', 'permanent_failure', 'deferred', 'requeued'));
