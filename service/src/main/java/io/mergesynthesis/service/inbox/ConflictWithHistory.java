package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.AttemptHistoryLine;
import io.mergesynthesis.service.core.BatchMembership;
import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.ProviderCall;
import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/**
 * One conflict on its own, with the provider calls made for it, the history of its attempts, oldest first, who
 * acknowledged and resolved it, and, while it waits, how many of its org's conflicts the claims take before it.
 *
 * @param aheadInOrg null unless the conflict is pending; counted up to {@link #AHEAD_COUNTED_TO}
 * @param batch      the provider batch it is in; null unless it is in one
 */
public record ConflictWithHistory(StoredConflict conflict, List<ProviderCall> calls,
                                  List<AttemptHistoryLine> history, Deciders deciders, Integer aheadInOrg,
                                  BatchMembership batch) {

    /**
     * Where the count of those ahead stops: past it, the figure only says "this many or more", and reading on
     * would cost the page a scan of the org's whole backlog.
     */
    public static final int AHEAD_COUNTED_TO = 10_000;
}
