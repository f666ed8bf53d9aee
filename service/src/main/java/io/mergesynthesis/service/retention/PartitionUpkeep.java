package io.mergesynthesis.service.retention;

import io.mergesynthesis.service.core.MonthPartition;
import io.mergesynthesis.service.db.MonthlyPartitions;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;
import java.util.OptionalInt;

/**
 * One run of the monthly partitions' upkeep (docs/adr/0049): partitions made for the months ahead, then, when a
 * retention is configured, the months past it dropped. The same for the {@code db retention} command and for
 * each replica's daily run; one run at a time across all of them, in one transaction as the schema's owner.
 */
public final class PartitionUpkeep {

    private final ScopedTransactions transactions;
    private final OptionalInt keptMonths;
    private final int monthsAhead;

    public PartitionUpkeep(ScopedTransactions transactions, OptionalInt keptMonths, int monthsAhead) {
        this.transactions = transactions;
        this.keptMonths = keptMonths;
        this.monthsAhead = monthsAhead;
    }

    public static PartitionUpkeep of(ScopedTransactions transactions, RetentionFactory settings) {
        return new PartitionUpkeep(transactions, settings.keptMonths(), settings.getMonthsAhead());
    }

    /**
     * What a run did: whether it had its turn (another run held the lock), the partitions it made and those it
     * dropped, or with a dry run would drop.
     */
    public record Outcome(boolean hadTurn, List<String> created, List<MonthPartition> dropped) {

        static final Outcome NO_TURN = new Outcome(false, List.of(), List.of());
    }

    /** Makes the partitions ahead and drops the expired months. */
    public Outcome run() {
        return run(false);
    }

    /** Lists the months a run would drop, changing nothing. */
    public Outcome dryRun() {
        return run(true);
    }

    private Outcome run(boolean dryRun) {
        return transactions.asLogin(handle -> {
            if (!MonthlyPartitions.takeTurn(handle)) {
                return Outcome.NO_TURN;
            }
            List<String> created = dryRun ? List.of() : MonthlyPartitions.createAhead(handle, monthsAhead);
            List<MonthPartition> dropped = keptMonths.isEmpty() ? List.of()
                    : MonthlyPartitions.dropExpired(handle, keptMonths.getAsInt(), dryRun);
            return new Outcome(true, created, dropped);
        });
    }
}
