-- merge-synthesis schema, version 31: the indexes the claim reads from their head keep one entry per row version,
-- so that an entry a claim has left behind can be marked dead on its own.
--
-- An ingest writes every conflict of one request with the same not_before (its transaction's now()), and a claim
-- leases every row it takes with the same lease_expires_at. B-tree deduplication folds the entries of equal keys
-- into one posting list per page, and a scan may mark an entry dead (so that the next scan skips it without a
-- visit to the table) only when every row version in its posting list is dead. At the head of an org's pending
-- rows the claimed versions and the next ones to claim share posting lists, so no entry there was ever marked,
-- and every claim visited each row its predecessors had taken since the last vacuum: about thirty row versions
-- per org read, for two it kept. Without deduplication each entry is marked dead by the first scan that finds its
-- version dead to every transaction.
--
-- The option applies to entries written from now on; posting lists already on disk go as their rows are claimed
-- or as a REINDEX rewrites them. Equal keys keep the order of their row versions, as before.

ALTER INDEX policy_conflicts_pending_by_org SET (deduplicate_items = off);
ALTER INDEX policy_conflicts_leases_by_expiry SET (deduplicate_items = off);
ALTER INDEX policy_conflicts_batch_lane_waiting SET (deduplicate_items = off);
