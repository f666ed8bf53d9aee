-- One call ended: what it held beyond what it cost goes back, and what its answer stated corrects the levels.
SELECT shared_token_settle(:provider, :model, :kinds, :heldTokens, :returnedTokens, :unseenTokens, :statedLimits,
                           :statedRemaining, :levelsAfter, :versions, :inFlightBefore, :reservedThrough, :answered,
                           :holder, CAST(:now AS timestamptz))
