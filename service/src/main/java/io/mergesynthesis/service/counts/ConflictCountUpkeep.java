package io.mergesynthesis.service.counts;

import io.mergesynthesis.service.db.ConflictCounts;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;

/**
 * The upkeep of the per-org conflict counts (docs/adr/0042): folding what changes added, and the repair that
 * recounts them from the conflicts. The counts are written by the schema's triggers in each change's own
 * transaction, so neither is needed for them to be right: the fold keeps each org's read to a handful of rows, and
 * the recount is for a database whose counts were changed by hand.
 */
public final class ConflictCountUpkeep {

    /** Orgs folded per statement: a bound on one fold's transaction, whatever the backlog. */
    static final int ORGS_PER_FOLD = 500;

    private final ScopedTransactions transactions;

    public ConflictCountUpkeep(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /**
     * Folds the count rows and usage rows of every org that has changes to fold, a bounded number of orgs per
     * transaction, in org order from the first.
     *
     * @return the transactions it took, or -1 when another replica was folding
     */
    public long fold() {
        long transactionsTaken = 0;
        ConflictCounts.FoldCursor cursor = ConflictCounts.FoldCursor.START;
        while (!cursor.done()) {
            ConflictCounts.FoldCursor from = cursor;
            cursor = transactions.crossTenant(handle -> ConflictCounts.fold(handle, from, ORGS_PER_FOLD));
            if (cursor == null) {
                return transactionsTaken == 0 ? -1 : transactionsTaken;
            }
            transactionsTaken++;
        }
        return transactionsTaken;
    }

    /** Recounts every org's conflicts and replaces the kept counts; conflicts go on changing meanwhile. */
    public long recount() {
        return transactions.crossTenant(ConflictCounts::recount);
    }

    /** Where the kept counts differ from the conflicts; empty when they are exact. Reads every conflict. */
    public List<ConflictCounts.Drift> drift() {
        return transactions.crossTenant(ConflictCounts::drift);
    }
}
