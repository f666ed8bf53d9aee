package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Claims conflicts for this replica in one short cross-tenant transaction, sent as one round trip: the sweep
 * identity with {@code row_security = off}, so that a claim which could not see every org's rows fails instead
 * of quietly working on a subset.
 *
 * <p>The claim's commit does not wait for the disk ({@link OneTripBatch#withoutWaitingForDisk()}): a claim that
 * a crash of the database server takes back only leaves its conflict claimable again, and the merge stored
 * under it is written durably, which takes the claim's WAL to disk first. Waiting for the flush here would
 * put a second disk write on every conflict's path from ingest to merge.
 */
public final class LeaseClaimer {

    private final ScopedTransactions transactions;
    private final String owner;
    private final Duration leaseDuration;
    private final SynthesisMetrics metrics;
    private final Ticker ticker;

    /** @param ticker what each lease's deadline is reckoned on */
    public LeaseClaimer(ScopedTransactions transactions, String owner, Duration leaseDuration,
                        SynthesisMetrics metrics, Ticker ticker) {
        this.transactions = transactions;
        this.owner = owner;
        this.leaseDuration = leaseDuration;
        this.metrics = metrics;
        this.ticker = ticker;
    }

    /**
     * What one claim got: the leases, and when it got fewer than it asked for, how long until the next
     * conflict that is waiting out a backoff or a lease becomes claimable.
     */
    record Claim(List<Lease> leases, Optional<Duration> nextDueIn) {
    }

    /**
     * Up to {@code limit} leases; fewer (or none) when fewer conflicts are claimable.
     *
     * @param heldRoutes the routes whose pending conflicts are left for later ({@link ClaimHold#heldRoutes})
     */
    Claim claim(int limit, String heldRoutes) {
        // The claim and the look at what comes due next go in one round trip; the second matters only when
        // the claim came back short, and costs one index probe when it did not.
        OneTripBatch batch = OneTripBatch.crossTenant().withoutWaitingForDisk();
        OneTripBatch.Result<List<Lease>> leases = ConflictLeases.claim(batch, owner, limit, leaseDuration, ticker,
                heldRoutes);
        OneTripBatch.Result<Optional<Duration>> nextDue = ConflictLeases.nextDueIn(batch);
        batch.run(transactions);
        Claim claim = new Claim(leases.get(), leases.get().size() < limit ? nextDue.get() : Optional.empty());
        counted(claim.leases());
        return claim;
    }

    /** Adds a claim of up to {@code limit} conflicts to a cross-tenant {@code trip}, sent by its owner. */
    OneTripBatch.Result<List<Lease>> claimInto(OneTripBatch trip, int limit, String heldRoutes) {
        return ConflictLeases.claim(trip, owner, limit, leaseDuration, ticker, heldRoutes);
    }

    /** Counts the recovered leases among {@code leases}, as {@link #claim} does for its own. */
    void counted(List<Lease> leases) {
        leases.stream().filter(Lease::recovered).forEach(lease -> metrics.leaseRecovered());
    }

    String owner() {
        return owner;
    }
}
