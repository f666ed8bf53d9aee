package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ClaimRoutes;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.WaitingOrgs;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

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
    private final WaitingOrgs waiting;

    /** @param ticker what each lease's deadline and the picture of the waiting orgs are reckoned on */
    public LeaseClaimer(ScopedTransactions transactions, String owner, Duration leaseDuration,
                        SynthesisMetrics metrics, Ticker ticker) {
        this.transactions = transactions;
        this.owner = owner;
        this.leaseDuration = leaseDuration;
        this.metrics = metrics;
        this.ticker = ticker;
        this.waiting = new WaitingOrgs(ticker);
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
     * @param routes the routes whose pending conflicts are left for later, and those paced ({@link ClaimHold#routes})
     */
    Claim claim(int limit, ClaimRoutes routes) {
        boolean walked = walkIfDue();
        Claim claim = claimOnce(limit, routes);
        if (claim.leases().size() < limit && !walked && routes.paced().isEmpty()) {
            // Short on a picture walked a while ago: the orgs it offered may have had nothing left while others
            // wait. Walk now and claim once more, rather than idle with work waiting. Not while a route is paced:
            // its one conflict a claim leaves every claim short, and a second claim would take a second.
            walkIfDue();
            Claim more = claimOnce(limit - claim.leases().size(), routes);
            List<Lease> all = new ArrayList<>(claim.leases());
            all.addAll(more.leases());
            claim = new Claim(all, more.nextDueIn());
        }
        if (claim.leases().size() >= limit) {
            return new Claim(claim.leases(), Optional.empty());
        }
        // Short: a walk has just been made (at the start or above), so the picture knows when the next pending
        // row waiting out a backoff comes due; the claim's batch told when the next lease ends.
        Optional<Duration> next = Stream.of(claim.nextDueIn(), waiting.nextPendingDueIn())
                .flatMap(Optional::stream)
                .min(Comparator.naturalOrder());
        return new Claim(claim.leases(), next);
    }

    /** One claim in one round trip, with when the next lease held now ends. */
    private Claim claimOnce(int limit, ClaimRoutes routes) {
        // The claim and the look at when the next lease ends go in one round trip; the second matters only when
        // the claim came back short, and costs one index probe when it did not.
        OneTripBatch batch = OneTripBatch.crossTenant().withoutWaitingForDisk();
        OneTripBatch.Result<Map<Lease, Double>> leases = ConflictLeases.claim(batch, owner, limit, leaseDuration,
                ticker, routes, waiting);
        OneTripBatch.Result<Optional<Duration>> nextDue = ConflictLeases.nextLeaseEndsIn(batch);
        batch.run(transactions);
        List<Lease> got = noted(leases.get(), limit);
        counted(got);
        return new Claim(got, nextDue.get());
    }

    /**
     * New conflicts were reported (a NOTIFY): the next claim walks the waiting orgs first, so that an org that had
     * nothing waiting is seen at once rather than when the picture ages, however busy the pool is with others.
     */
    public void newConflictsReported() {
        waiting.newConflictsReported();
    }

    /**
     * Walks the waiting orgs, in a round trip of its own, when the picture is due and no other claim has taken
     * the walk; true when it walked.
     */
    private boolean walkIfDue() {
        if (!waiting.takeWalk()) {
            return false;
        }
        OneTripBatch batch = OneTripBatch.crossTenant().withoutWaitingForDisk();
        waiting.walkInto(batch);
        batch.run(transactions);
        return true;
    }

    /**
     * Adds a claim of up to {@code limit} conflicts to a cross-tenant {@code trip}, sent by its owner (a store that
     * claims the next conflicts). When the picture is due, the walk goes in the same trip, after the claim: a pool
     * whose workers all refill from their stores claims in no other way, and must still see orgs that have just
     * reported work. This claim goes on the picture as it was, the next one on the new one.
     */
    OneTripBatch.Result<Map<Lease, Double>> claimInto(OneTripBatch trip, int limit, ClaimRoutes routes) {
        OneTripBatch.Result<Map<Lease, Double>> claim = ConflictLeases.claim(trip, owner, limit, leaseDuration,
                ticker, routes, waiting);
        if (waiting.takeWalk()) {
            waiting.walkInto(trip);
        }
        return claim;
    }

    /**
     * Moves the picture of the waiting orgs on by what a claim of up to {@code asked} got; the leases, in the order
     * claimed.
     */
    List<Lease> noted(Map<Lease, Double> claimed, int asked) {
        waiting.claimed(claimed, asked);
        return List.copyOf(claimed.keySet());
    }

    /** Counts the recovered leases among {@code leases}, as {@link #claim} does for its own. */
    void counted(List<Lease> leases) {
        leases.stream().filter(Lease::recovered).forEach(lease -> metrics.leaseRecovered());
    }

    String owner() {
        return owner;
    }
}
