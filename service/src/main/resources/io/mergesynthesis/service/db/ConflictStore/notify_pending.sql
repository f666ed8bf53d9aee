-- Wakes the workers that listen on :channel once the transaction commits; the notice carries nothing.
SELECT pg_notify(:channel, '')
