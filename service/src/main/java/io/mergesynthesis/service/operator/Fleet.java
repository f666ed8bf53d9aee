package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.db.FleetFigures;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.time.Duration;
import java.time.Instant;

/** The operator's read model: the whole fleet's conflicts, failures and spend, across orgs. */
public final class Fleet {

    /** Attempt endings counted as recent: the last day. */
    public static final Duration RECENT = Duration.ofHours(24);

    private final ScopedTransactions transactions;

    public Fleet(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    public FleetOverview overview(Instant now, FleetOverview.OrgPage orgs) {
        return transactions.crossTenant(handle -> FleetFigures.read(handle, UsageLedger.monthStart(handle),
                now.minus(RECENT), orgs));
    }
}
