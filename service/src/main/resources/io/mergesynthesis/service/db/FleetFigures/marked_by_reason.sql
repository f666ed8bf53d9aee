-- The conflicts that used up their attempts, by the reason of their last failure, most frequent first.
SELECT coalesce(last_failure_reason, 'unknown') AS reason, count(*) AS n
  FROM policy_conflicts
 WHERE synthesis_state = 'max_attempts_exceeded'
 GROUP BY 1 ORDER BY n DESC, reason
