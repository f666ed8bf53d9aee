package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.core.ActivityBucket;
import io.mergesynthesis.service.db.FleetHistory;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The fleet's merges, failures, deferrals and spend over time, for the operator's charts. */
public final class FleetActivity {

    /** The per-minute chart covers this much: long enough to see an incident's start and end. */
    public static final Duration RECENT_HOURS = Duration.ofHours(3);
    /** The per-day chart covers this many days, today included. */
    public static final int DAYS = 30;

    private final ScopedTransactions transactions;

    public FleetActivity(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** One bucket per minute over the last {@link #RECENT_HOURS}, oldest first. */
    public List<ActivityBucket> perMinute(Instant now) {
        return transactions.crossTenant(handle -> FleetHistory.buckets(handle, FleetHistory.Unit.MINUTE,
                now.minus(RECENT_HOURS).plus(Duration.ofMinutes(1)), now));
    }

    /** One bucket per UTC day over the last {@link #DAYS} days, oldest first. */
    public List<ActivityBucket> perDay(Instant now) {
        return transactions.crossTenant(handle -> FleetHistory.buckets(handle, FleetHistory.Unit.DAY,
                now.minus(Duration.ofDays(DAYS - 1)), now));
    }
}
