package io.mergesynthesis.bench;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.worker.store.ClaimRoutes;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.WaitingOrgs;
import io.mergesynthesis.synthesis.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database's ceiling for this workload: the pool's own statements and batches, sent by plain threads on one
 * connection each, with no synthesizer, no worker threads and no queue between claim and work. Whatever the pool
 * adds on top of these statements shows up as the gap between its throughput and this one's. Each thread batches
 * as the pool does: it claims {@link #CLAIM_BATCH} rows, reads them all back in one tenant transaction and stores
 * them all in another that also claims the next batch, each row under its own org, each transaction a single
 * multi-statement text sent in one round trip.
 */
final class CeilingLoop {

    /** The pool claims up to as many rows as it has free workers (4 by default) in one statement. */
    static final int CLAIM_BATCH = 4;

    /** How long a claim leases a row: the product's default {@code synthesis.leaseDuration}. */
    private static final Duration LEASE = Duration.ofSeconds(60);

    private final BenchDatabase db;
    private final Fixture fixture;
    private final int threads;
    private final int claimBatch;
    /**
     * The pool's picture of the fair order, one for all threads as a replica has one for all its workers: walked
     * now and then, followed between walks by every thread's claims.
     */
    private final WaitingOrgs picture = new WaitingOrgs(Ticker.SYSTEM);

    CeilingLoop(BenchDatabase db, Fixture fixture, int threads) {
        this(db, fixture, threads, CLAIM_BATCH);
    }

    /**
     * @param claimBatch the most rows one thread claims at a time; {@code threads x claimBatch} conflicts are in
     *     flight at most
     */
    CeilingLoop(BenchDatabase db, Fixture fixture, int threads, int claimBatch) {
        this.db = db;
        this.fixture = fixture;
        this.threads = threads;
        this.claimBatch = claimBatch;
    }

    /** What one drain did: rows finalized and the wall-clock time it took. */
    record Drained(long rows, double seconds) {
        double perSecond() {
            return rows / seconds;
        }
    }

    /**
     * Makes every pending row claimable in one commit and drains them all. Each thread stops when a claim comes
     * back empty: every row left is then leased to another thread.
     */
    Drained drainAll() throws Exception {
        DrainRelease.releaseAll(db);
        AtomicLong finalized = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "ceiling-" + t;
                futures.add(pool.submit(() -> {
                    runWorker(owner, finalized);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Drained(finalized.get(), seconds);
    }

    /**
     * One thread's drain, through the product's own statements ({@code ConflictLeases}) and batches
     * ({@code OneTripBatch}) on a plain connection, as the pool's claim loop, reader and completer send them:
     * auto-commit on, each batch one round trip and one transaction. As in the pool, the store of a batch claims
     * the next one in the same round trip.
     */
    private void runWorker(String owner, AtomicLong finalized) throws SQLException {
        String details = "{\"synthesizer\":\"stub\",\"lease_owner\":\"" + owner + "\"}";
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            List<Lease> leased = claimFresh(c, owner, claimBatch, picture);
            while (!leased.isEmpty()) {
                OneTripBatch read = OneTripBatch.tenant();
                List<OneTripBatch.Result<Optional<ConflictLeases.LeasedRow>>> rows = new ArrayList<>();
                for (Lease lease : leased) {
                    rows.add(ConflictLeases.load(read, lease.orgId(), lease.conflictId()));
                }
                read.run(c);
                for (OneTripBatch.Result<Optional<ConflictLeases.LeasedRow>> row : rows) {
                    if (row.get().isEmpty()) {
                        throw new IllegalStateException("a leased row is not visible in its org");
                    }
                }

                OneTripBatch store = OneTripBatch.tenant();
                List<OneTripBatch.Result<Integer>> stored = new ArrayList<>();
                for (Lease lease : leased) {
                    stored.add(ConflictLeases.storeMerge(store, lease.orgId(), lease, fixture.mergeJson(), details));
                }
                int asked = leased.size();
                OneTripBatch.Result<Map<Lease, Double>> next = ConflictLeases.claim(store.crossTenantFromHere(),
                        owner, asked, LEASE, Ticker.SYSTEM, ClaimRoutes.NONE, picture);
                store.run(c);
                for (OneTripBatch.Result<Integer> count : stored) {
                    finalized.addAndGet(count.get());
                }
                picture.claimed(next.get(), asked);
                leased = List.copyOf(next.get().keySet());
                if (leased.isEmpty()) {
                    // As the pool's claim loop does: a picture that offered nothing is walked again before the
                    // drain is taken to be over.
                    leased = claimFresh(c, owner, asked, picture);
                }
            }
        }
    }

    /** Walks the waiting orgs when the picture is due, then claims, as the pool's claim loop does. */
    private static List<Lease> claimFresh(Connection c, String owner, int limit, WaitingOrgs picture)
            throws SQLException {
        if (picture.due()) {
            OneTripBatch walk = OneTripBatch.crossTenant().withoutWaitingForDisk();
            picture.walkInto(walk);
            walk.run(c);
        }
        OneTripBatch claimTrip = OneTripBatch.crossTenant().withoutWaitingForDisk();
        OneTripBatch.Result<Map<Lease, Double>> claimed = ConflictLeases.claim(claimTrip, owner, limit, LEASE,
                Ticker.SYSTEM, ClaimRoutes.NONE, picture);
        ConflictLeases.nextLeaseEndsIn(claimTrip);
        claimTrip.run(c);
        picture.claimed(claimed.get(), limit);
        return List.copyOf(claimed.get().keySet());
    }
}
