-- Up to :limit of :org's conflicts that pass the inbox's filters, newest first, the first page.
-- Read for a filter by action (:action) when no other filter holds fewer conflicts: down the range of
-- conflicts_by_action (schema 20) that holds the org's conflicts of that action alone, in the page's order, each
-- conflict fetched by its id and checked against the other filters, stopping at :limit. The org's conflicts of
-- other actions are never read. A null filter does not filter.
\ir conflicts_of_action.sql
ORDER BY a.received_at DESC, a.conflict_id DESC LIMIT :limit
