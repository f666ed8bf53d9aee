-- Reserves what one call holds under each token limit of its model, all or none, in the replica's row of holds
-- (:holder, alive :holdSeconds after), on the database's clock unless :now names a time: one row per limit when
-- granted, one row with the wait when not.
SELECT kind, granted, wait_seconds, level_after, version, in_flight_before, reserved_through
  FROM shared_token_reserve(:provider, :model, :kinds, :heldTokens, :holder, :holdSeconds,
                            CAST(:now AS timestamptz))
