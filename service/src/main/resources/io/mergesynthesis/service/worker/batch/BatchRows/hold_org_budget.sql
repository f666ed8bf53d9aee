-- Holds :org's settings row until the transaction ends, so that the batch lanes of two replicas size their
-- batches to the org's budget one after the other: each reads what the other reserved, never the same room
-- twice. No row (and nothing held) when the org has no settings, and so no budget. Runs under the org's scope.
SELECT org_id FROM org_synthesis_settings WHERE org_id = :org FOR NO KEY UPDATE
