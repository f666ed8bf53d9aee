-- Attempts ended since :since, by outcome and reason, most frequent first; a requeue by hand is no ending.
SELECT outcome, reason, count(*) AS n
  FROM synthesis_attempt_history
 WHERE finished_at >= :since AND outcome <> 'requeued'
 GROUP BY outcome, reason ORDER BY n DESC, outcome, reason
