package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Duration;
import java.util.List;

/**
 * Claims conflicts for this replica in one short cross-tenant transaction: the sweep identity with
 * {@code row_security = off}, so that a claim which could not see every org's rows fails instead of quietly
 * working on a subset.
 */
final class LeaseClaimer {

    private final ScopedTransactions transactions;
    private final String owner;
    private final Duration leaseDuration;
    private final SynthesisMetrics metrics;

    LeaseClaimer(ScopedTransactions transactions, String owner, Duration leaseDuration, SynthesisMetrics metrics) {
        this.transactions = transactions;
        this.owner = owner;
        this.leaseDuration = leaseDuration;
        this.metrics = metrics;
    }

    /** Up to {@code limit} leases; fewer (or none) when fewer conflicts are claimable. */
    List<Lease> claim(int limit) {
        List<Lease> leases = transactions.crossTenant(
                handle -> ConflictLeases.claim(handle, owner, limit, leaseDuration));
        leases.stream().filter(Lease::recovered).forEach(lease -> metrics.leaseRecovered());
        return leases;
    }

    String owner() {
        return owner;
    }
}
