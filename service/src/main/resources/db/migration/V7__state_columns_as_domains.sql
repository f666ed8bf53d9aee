-- merge-synthesis schema, version 7: the columns that hold one of a fixed set of words are domains over text.
--
-- The rule on each column is unchanged: the same words, still enforced by the database. What changes is where
-- PostgreSQL keeps it. A table CHECK constraint is read back from its stored text and prepared again at the
-- start of every INSERT or UPDATE of the table, all of them on every update whichever columns it changes; a
-- domain's rule is prepared once per connection and checked only when a value is written to that column.
-- On the worker's path, where each conflict is updated twice (claim, store) and gains an event, the table's
-- constraints were measured at about a sixth of the database's CPU per conflict
-- (docs/adr/0030-cheaper-statements-per-conflict.md).
--
-- A domain reads and compares as the text it holds: queries, JDBC binds of strings and the partial indexes
-- over synthesis_state behave as before. The rules that tie two columns together stay table constraints.
-- Changing a column's type to a domain with a rule rewrites the table and its indexes once.

CREATE DOMAIN conflict_action AS text
    CHECK (VALUE IN ('tool_call', 'data_export', 'knowledge_query'));

CREATE DOMAIN synthesis_state AS text
    CHECK (VALUE IN ('pending', 'in_progress', 'done', 'max_attempts_exceeded', 'waiting_budget', 'not_needed'));

-- The eight failure reasons of the contract.
CREATE DOMAIN failure_reason AS text
    CHECK (VALUE IN ('set_org_id', 'load_row', 'router_resolve', 'synthesizer', 'invalid_json', 'write_merge',
                     'max_attempts_exceeded', 'unknown'));

CREATE DOMAIN failure_marker AS text
    CHECK (VALUE = 'synthesis_max_attempts_exceeded');

CREATE DOMAIN inbox_status AS text
    CHECK (VALUE IN ('open', 'acknowledged', 'resolved'));

CREATE DOMAIN resolution AS text
    CHECK (VALUE IN ('accepted_suggestion', 'rejected_suggestion', 'manual'));

CREATE DOMAIN conflict_event_type AS text
    CHECK (VALUE IN ('conflict_detected', 'merge_synthesized', 'synthesis_failed_permanently',
                     'conflict_acknowledged', 'conflict_resolved', 'synthesis_requeued'));

ALTER TABLE policy_conflicts
    DROP CONSTRAINT policy_conflicts_action_check,
    DROP CONSTRAINT policy_conflicts_synthesis_state_check,
    DROP CONSTRAINT policy_conflicts_last_failure_reason_check,
    DROP CONSTRAINT policy_conflicts_failure_marker_check,
    DROP CONSTRAINT policy_conflicts_inbox_status_check,
    DROP CONSTRAINT policy_conflicts_resolution_check,
    ALTER COLUMN action TYPE conflict_action,
    ALTER COLUMN synthesis_state TYPE synthesis_state,
    ALTER COLUMN last_failure_reason TYPE failure_reason,
    ALTER COLUMN failure_marker TYPE failure_marker,
    ALTER COLUMN inbox_status TYPE inbox_status,
    ALTER COLUMN resolution TYPE resolution;

ALTER TABLE conflict_events
    DROP CONSTRAINT conflict_events_event_type_check,
    ALTER COLUMN event_type TYPE conflict_event_type;

-- Types are usable by every role by default, the service roles included: no grant is needed.
