-- merge-synthesis schema, version 10: a ledger row can say the merge check refused its answer.
--
-- A provider call whose answer was well-formed but whose merge the merge check refused is paid for and never
-- stored. 'failed' would hide why (it means an error status or an unreadable answer), and 'discarded' means a
-- valid answer replaced by a later one; 'refused' says the check threw it away. The other words are unchanged.
ALTER TABLE llm_usage_events DROP CONSTRAINT llm_usage_events_outcome_check;
ALTER TABLE llm_usage_events ADD CONSTRAINT llm_usage_events_outcome_check
    CHECK (outcome IN ('stored', 'discarded', 'failed', 'rate_limited', 'refused'));
