-- merge-synthesis schema, version 16: a filtered inbox page found by an index, not by reading the org's history.
--
-- The inbox index (org_id, received_at DESC, id DESC) reads an org's conflicts newest first and checks each
-- filter on the rows it passes. For the values most of an org's conflicts hold (a merge done, an inbox still
-- open near the newest end) a page is found within its first rows. For the others (pending, waiting for budget,
-- marked, not needed; acknowledged, resolved) it could read most of a large org's rows before
-- finding a page. These two indexes hold exactly the conflicts in such a value, ordered as the page is, so the
-- first page of such a filter is the first rows of one index range.
--
-- Each is partial, so that the worker's drain pays little for them: a conflict enters the state index when it is
-- ingested and when a retry puts it back, but not when it is claimed (in progress: the leases' index holds those)
-- nor once it is done; the worker never changes an inbox status, so the status index gains a row only when an
-- admin acknowledges or resolves.
--
-- Built in the migration's transaction: writes to conflicts wait while the build reads the table (seconds for
-- millions of conflicts, as each index takes only its share of them). A CONCURRENTLY build, tried first, never
-- finished under Flyway's migration lock.
CREATE INDEX policy_conflicts_by_state_received
    ON policy_conflicts (org_id, synthesis_state, received_at DESC, id DESC)
    WHERE synthesis_state NOT IN ('done', 'in_progress');

CREATE INDEX policy_conflicts_by_status_received
    ON policy_conflicts (org_id, inbox_status, received_at DESC, id DESC)
    WHERE inbox_status <> 'open';
