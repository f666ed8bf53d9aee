package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores finished merges, several to a commit when several are ready. A worker hands its validated merge in and
 * its thread moves on (the pool still counts the worker busy, and claims nothing for it, until the merge is
 * stored); the completer's threads write every merge queued so far in one transaction sent as one round trip
 * ({@link OneTripBatch}), each row under its own org scope ({@code app.org_id} set to that row's org right
 * before that row's statement) and each fenced on its own lease, then complete each merge's future with whether
 * it was stored.
 * Nothing waits to fill a batch: a lone merge is written at once, and merges that arrive during a write go
 * together in the next. Unless the pool is stopping, the same round trip ends with a claim of as many conflicts
 * as the batch frees workers ({@link Refill}), so that during a drain a freed worker's next conflict comes with
 * the store of its last one.
 *
 * <p>One bad row never costs the others their write: when a batch fails, it is rolled back whole and every merge
 * in it is written again in a transaction of its own, so the rows that can be stored are stored and only the bad
 * one reports its failure. A batch that failed because the database was unavailable is instead tried again
 * whole, within its leases.
 *
 * <p>The queue is bounded, though a pool never has more merges waiting here than it has workers: when the
 * database falls behind, the workers stay busy until their merges are stored, and so nothing new is claimed.
 * On stop, everything handed in is written before the threads end; a merge handed in after that is written by
 * the thread that hands it in.
 */
final class MergeCompleter {

    private static final Logger LOG = LoggerFactory.getLogger(MergeCompleter.class);
    /** How often an idle writer looks whether the completer is stopping. */
    private static final long IDLE_CHECK_MILLIS = 100;

    /** Pauses between tries of a store while the database is unavailable: 100 ms doubling to 1 s. */
    private static final Duration STORE_RETRY_FIRST = Duration.ofMillis(100);
    private static final Duration STORE_RETRY_LAST = Duration.ofSeconds(1);

    private final ScopedTransactions transactions;
    private final Refill refill;
    private final FailureStreak storeFailures;
    private final int maxBatch;
    private final int writers;
    private final BlockingQueue<Pending> queue;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    /**
     * @param writers threads writing batches side by side, each on a connection of its own while it writes
     * @param maxBatch the most merges one commit stores; also how many may wait to be written
     */
    MergeCompleter(ScopedTransactions transactions, int writers, int maxBatch, Clock clock, Refill refill) {
        this.transactions = transactions;
        this.refill = refill;
        this.storeFailures = new FailureStreak(LOG, "Storing suggested merges", clock);
        this.writers = writers;
        this.maxBatch = maxBatch;
        this.queue = new ArrayBlockingQueue<>(maxBatch);
    }

    /**
     * Claims work for the workers a store frees, in the store's own round trip, so that a freed worker need not
     * wait for the claim loop to notice it and claim in a round trip of its own.
     */
    interface Refill {
        /** False while the pool stops: then stores claim nothing. */
        boolean wanted();

        /** Adds a claim of up to {@code limit} conflicts to {@code trip}, which has turned cross-tenant. */
        OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit);

        /**
         * Reads back what the store's trip claimed, inside the store's own transaction (open on {@code handle}),
         * so that store, claim and read-back commit as one.
         */
        LeaseReader.ReadAhead readBack(Handle handle, List<Lease> leases);

        /**
         * Takes what a store's trip claimed, with what was read back of it, once it committed and before the
         * stored merges are reported: the workers those merges free go on to these conflicts.
         */
        void claimed(List<Lease> leases, LeaseReader.ReadAhead readAhead);
    }

    /**
     * A merge ready to store: the lease that fences it, the org scope it is written under, its texts, and the
     * ledger rows of the provider calls it cost (empty for a synthesizer that calls none), for attempt
     * {@code attempt}.
     */
    record Finished(Lease lease, UUID scopeOrg, String mergeJson, String eventDetailsJson, int attempt,
                    List<UsageLedger.Entry> calls) {

        /** A merge that cost no provider call. */
        Finished(Lease lease, UUID scopeOrg, String mergeJson, String eventDetailsJson) {
            this(lease, scopeOrg, mergeJson, eventDetailsJson, lease.attempts(), List.of());
        }
    }

    private record Pending(Finished merge, CompletableFuture<Boolean> stored) {
    }

    synchronized void start(String threadPrefix) {
        for (int i = 1; i <= writers; i++) {
            Thread thread = new Thread(this::writeUntilStopped, threadPrefix + "-completer-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    /** Writes everything handed in so far, then ends the threads. */
    synchronized void stop() throws InterruptedException {
        stopped = true;
        for (Thread thread : threads) {
            thread.join();
        }
        threads.clear();
        writeLeftovers();
    }

    /**
     * Hands {@code merge} in to be stored with its event. The future completes with true once it is stored,
     * false when the lease was no longer this worker's (nothing written), or with what the write threw.
     */
    CompletableFuture<Boolean> store(Finished merge) {
        Pending pending = new Pending(merge, new CompletableFuture<>());
        if (stopped) {
            write(List.of(pending), false);
            return pending.stored();
        }
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(pending);
                break;
            } catch (InterruptedException e) {
                // A finished merge is not dropped: the wait for room is short, as the writers keep going.
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (stopped) {
            // Handed in as the completer stopped: the writers may be gone already.
            writeLeftovers();
        }
        return pending.stored();
    }

    private void writeUntilStopped() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        while (true) {
            Pending first;
            try {
                first = queue.poll(IDLE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                LOG.warn("A merge completer thread was interrupted; stop() writes what it leaves");
                return;
            }
            if (first == null) {
                if (stopped) {
                    return;
                }
                continue;
            }
            batch.clear();
            batch.add(first);
            queue.drainTo(batch, maxBatch - 1);
            write(batch, true);
        }
    }

    private void writeLeftovers() {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(pending -> write(List.of(pending), false));
    }

    /**
     * Writes {@code batch}, completing each merge's future. While the database is unavailable the batch is tried
     * again after a short pause, for as long as each merge's lease lasts: the synthesizer call behind a merge may
     * have been expensive, and a database that is back within the lease should not cost it again. A merge whose
     * lease runs out meanwhile (or any merge once the completer is stopping) fails with the last error.
     *
     * @param mayClaim whether the trip may also claim work for the workers it frees; rows written one by one
     *     after a failed batch claim nothing, so that a claim that fails cannot fail their stores
     */
    private void write(List<Pending> batch, boolean mayClaim) {
        RetryPause pause = new RetryPause(STORE_RETRY_FIRST, STORE_RETRY_LAST);
        List<Pending> left = batch;
        while (true) {
            try {
                writeTogether(left, mayClaim);
                storeFailures.succeeded();
                return;
            } catch (RuntimeException | Error e) {
                if (!DatabaseUnavailable.isCauseOf(e)) {
                    writeEachAlone(left, e, mayClaim);
                    return;
                }
                Duration wait = pause.next();
                List<Pending> keep = new ArrayList<>();
                for (Pending pending : left) {
                    if (!stopped && pending.merge().lease().heldUntil().allows(wait)) {
                        keep.add(pending);
                    } else {
                        pending.stored().completeExceptionally(e);
                    }
                }
                if (keep.isEmpty()) {
                    return;
                }
                storeFailures.failed(e, wait);
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException interrupted) {
                    keep.forEach(pending -> pending.stored().completeExceptionally(e));
                    Thread.currentThread().interrupt();
                    return;
                }
                left = keep;
            }
        }
    }

    /**
     * After a batch failed for a reason of its own rows (or of the claim its trip carried): one bad row never costs
     * the others their write, so each is written again in a transaction of its own, claiming nothing, and only
     * the bad one reports its failure. A lone merge is written again only if its trip also claimed: the claim
     * may have been what failed.
     */
    private void writeEachAlone(List<Pending> batch, Throwable failure, boolean claimed) {
        if (batch.size() == 1 && !claimed) {
            batch.get(0).stored().completeExceptionally(failure);
            return;
        }
        for (Pending pending : batch) {
            write(List.of(pending), false);
        }
    }

    /**
     * One transaction for the whole batch, ending with a claim for the workers it frees when {@code claim} is
     * set and the pool wants more work; completes the futures only when it committed. Without a claim it is one
     * round trip; with one, the rows claimed are read back before the same commit, so that a conflict costs one
     * transaction from its store to the next conflict's read, whether the provider answers one at a time or many.
     */
    private void writeTogether(List<Pending> batch, boolean claim) {
        OneTripBatch trip = OneTripBatch.tenant();
        List<OneTripBatch.Result<Integer>> stored = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            Finished merge = pending.merge();
            stored.add(merge.calls().isEmpty()
                    ? ConflictLeases.storeMerge(trip, merge.scopeOrg(), merge.lease(), merge.mergeJson(),
                            merge.eventDetailsJson())
                    : ConflictLeases.storeMerge(trip, merge.scopeOrg(), merge.lease(), merge.mergeJson(),
                            merge.eventDetailsJson(), merge.attempt(), merge.calls()));
        }
        OneTripBatch.Result<List<Lease>> next = null;
        if (claim && refill.wanted()) {
            next = refill.claim(trip.crossTenantFromHere(), batch.size());
        }
        LeaseReader.ReadAhead readAhead = LeaseReader.ReadAhead.NONE;
        if (next == null) {
            trip.run(transactions.jdbi());
        } else {
            OneTripBatch.Result<List<Lease>> claimed = next;
            readAhead = transactions.jdbi().inTransaction(handle -> {
                trip.runWithin(handle);
                return refill.readBack(handle, claimed.get());
            });
        }
        if (next != null && !next.get().isEmpty()) {
            refill.claimed(next.get(), readAhead);
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).stored().complete(stored.get(i).get() == 1);
        }
    }
}
