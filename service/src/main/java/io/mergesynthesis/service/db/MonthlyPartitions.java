package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.MonthPartition;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The upkeep of the tables kept in monthly partitions ({@code conflict_events}, {@code llm_usage_events},
 * {@code synthesis_attempt_history}; docs/adr/0049): partitions made ahead of the months to come, and months past
 * the retention dropped. The work is done by functions of the schema (migration 15), so that the command and
 * every replica do the same; these statements call them.
 *
 * <p>Both change the schema. The functions run as their owner, the login that migrated (schema 23), so the
 * runtime login calls them ({@link ScopedTransactions#asLogin}) without owning anything; one upkeep runs at a time
 * across replicas: each holds a transaction-level advisory lock for its run ({@link #takeTurn}).
 */
public final class MonthlyPartitions {

    /** The upkeep's advisory lock key: "monthly" in ASCII, a number no other part of the service locks. */
    static final long UPKEEP_LOCK = 0x6d6f6e74686c79L;

    private static final String TAKE_TURN = SqlFiles.of(MonthlyPartitions.class, "take_turn");
    private static final String CREATE_AHEAD = SqlFiles.of(MonthlyPartitions.class, "create_ahead");
    private static final String DROP_EXPIRED = SqlFiles.of(MonthlyPartitions.class, "drop_expired");

    private MonthlyPartitions() {
    }

    /**
     * Takes the upkeep's lock for the rest of the transaction if no one holds it; false when another replica (or
     * the command) is at it now, and this turn should be skipped.
     */
    public static boolean takeTurn(Handle handle) {
        return handle.createQuery(TAKE_TURN).bind("lockKey", UPKEEP_LOCK).mapTo(Boolean.class).one();
    }

    /**
     * Makes every table's partitions from the current month through {@code monthsAhead} months later, and one for
     * any month with rows in a DEFAULT partition; returns the names of those it made.
     */
    public static List<String> createAhead(Handle handle, int monthsAhead) {
        return handle.createQuery(CREATE_AHEAD).bind("months", monthsAhead).mapTo(String.class).list();
    }

    /**
     * Drops the partitions whose month ended more than {@code keepMonths} months ago, or only lists them when
     * {@code dryRun}; returns them, oldest first per table.
     */
    public static List<MonthPartition> dropExpired(Handle handle, int keepMonths, boolean dryRun) {
        return handle.createQuery(DROP_EXPIRED)
                .bind("keepMonths", keepMonths)
                .bind("dryRun", dryRun)
                .map((rs, ctx) -> new MonthPartition(rs.getString("partition"),
                        YearMonth.from(rs.getObject("month", LocalDate.class)), rs.getLong("bytes")))
                .list();
    }
}
