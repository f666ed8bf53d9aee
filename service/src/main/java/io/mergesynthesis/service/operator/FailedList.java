package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.core.MarkedConflict;
import io.mergesynthesis.service.db.FailedConflicts;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;
import java.util.UUID;

/** The operator's list of the conflicts the worker pool gave up on, across orgs, newest first. */
public final class FailedList {

    private final ScopedTransactions transactions;

    public FailedList(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** A page of the list, and whether an older page follows. */
    public record Page(List<MarkedConflict> conflicts, boolean more) {
    }

    /**
     * @param reason only this last failure reason's; null for any
     * @param org    only this org's; null for any
     * @param after  where the previous page ended; null for the newest
     */
    public Page page(String reason, UUID org, MarkedConflict.Key after, int size) {
        List<MarkedConflict> rows = transactions.crossTenant(handle -> FailedConflicts.page(handle, reason, org, after,
                size + 1));
        boolean more = rows.size() > size;
        return new Page(more ? rows.subList(0, size) : rows, more);
    }
}
