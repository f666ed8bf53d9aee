-- The history of conflict :id, oldest first; runs under that conflict's org scope.
SELECT attempt, outcome, reason, detail, finished_at, not_before
FROM synthesis_attempt_history WHERE conflict_id = :id ORDER BY id
