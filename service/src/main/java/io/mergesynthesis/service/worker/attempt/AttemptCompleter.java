package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.FailureStreak;
import io.mergesynthesis.service.worker.RetryPause;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.Ticker;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes how attempts ended ({@link AttemptResult}: a merge stored, a retry, the marker, a hand-back, a parked
 * conflict), several to a commit when several are ready: the one place that ends a lease. A worker hands its
 * result in and its thread moves on (the pool still counts the worker busy, and claims nothing for it, until the
 * result is written); the completer's threads write every result queued so far in one transaction sent as one
 * round trip ({@link OneTripBatch}), each row under its own org scope ({@code app.org_id} set to that row's org
 * right before that row's statement) and each fenced on its own lease, then complete each result's future with
 * what was written.
 * Results that arrive during a write go together in the next. A writer that finds fewer results queued than its
 * share of the workers waits a moment for more ({@link Gathering}), never longer than a fraction of a commit.
 * Unless the pool is stopping, the same round trip ends with a claim of as many conflicts as the batch frees
 * workers ({@link Refill}), so that during a drain a freed worker's next conflict comes with the store of its
 * last one.
 *
 * <p>One bad row never costs the others their write: when a batch fails, it is rolled back whole and every result
 * in it is written again in a transaction of its own, so the rows that can be written are written and only the
 * bad one reports its failure. A batch that failed because the database was unavailable is instead tried again
 * whole, within its leases.
 *
 * <p>The queue is bounded, though a pool never has more results waiting here than it holds leases: when the
 * database falls behind, the workers stay busy until their results are written, and so nothing new is claimed.
 * On stop, everything handed in is written before the threads end; a result handed in after that is written by
 * the thread that hands it in.
 */
public final class AttemptCompleter {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptCompleter.class);
    private static final Comparator<Pending> BY_ORG = Comparator.comparing(pending -> pending.result().scopeOrg(),
            Comparator.nullsFirst(Comparator.naturalOrder()));
    /** How often an idle writer looks whether the completer is stopping. */
    private static final long IDLE_CHECK_MILLIS = 100;

    /** Pauses between tries of a write while the database is unavailable: 100 ms doubling to 1 s. */
    private static final Duration STORE_RETRY_FIRST = Duration.ofMillis(100);
    private static final Duration STORE_RETRY_LAST = Duration.ofSeconds(1);

    private final ScopedTransactions transactions;
    private final Ticker ticker;
    /** Set by {@link #start}, before the writers that use it run. */
    private Refill refill;
    private final FailureStreak storeFailures;
    private final int maxBatch;
    private final Gathering gathering;
    private final int writers;
    private final BlockingQueue<Pending> queue;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    private final AtomicInteger heldWhileGathering = new AtomicInteger();

    /**
     * How a writer fills a batch: when fewer than {@code size} results are queued, it waits up to {@code atMost}
     * for more before it writes. Each transaction's fixed cost (the role switches, the claim statement, the
     * commit, two round trips) is shared by every result in it, so a short wait for a second result makes each
     * stored merge cheaper for the database (figures: docs/performance.md, ADR 0030). The wait is short next to
     * a durable commit, and a result never waits longer than it. The size is asked each time: a pool that holds
     * leases ahead of its workers has more results to share a commit while it does.
     */
    public record Gathering(IntSupplier sizeNow, Duration atMost) {

        public Gathering(int size, Duration atMost) {
            this(() -> size, atMost);
        }

        /** Write whatever is queued at once: a lone result goes alone. */
        public static final Gathering NONE = new Gathering(1, Duration.ZERO);

        /** How many results a writer waits for now. */
        public int size() {
            return sizeNow.getAsInt();
        }

        /**
         * The pool's: each writer's share of the leases the pool holds now ({@code leases}: its workers and those
         * held ahead of them), gathered for at most {@link #POOL_WAIT}.
         */
        public static Gathering forPool(IntSupplier leases, int writers) {
            return new Gathering(() -> Math.max(1, (leases.getAsInt() + writers - 1) / writers), POOL_WAIT);
        }

        static final Duration POOL_WAIT = Duration.ofNanos(500_000);
    }

    /**
     * @param writers threads writing batches side by side, each on a connection of its own while it writes
     * @param maxBatch the most results one commit writes; also how many may wait to be written
     * @param gathering how long a writer waits to fill a batch that has few results
     * @param ticker what the gathering's wait is reckoned on
     */
    public AttemptCompleter(ScopedTransactions transactions, int writers, int maxBatch, Gathering gathering,
                            Clock clock, Ticker ticker) {
        this.transactions = transactions;
        this.ticker = ticker;
        this.storeFailures = new FailureStreak(LOG, "Writing the ends of attempts", clock);
        this.writers = writers;
        this.maxBatch = maxBatch;
        this.gathering = gathering;
        this.queue = new ArrayBlockingQueue<>(maxBatch);
    }

    /** A completer whose writers write whatever is queued at once ({@link Gathering#NONE}). */
    public AttemptCompleter(ScopedTransactions transactions, int writers, int maxBatch, Clock clock, Ticker ticker) {
        this(transactions, writers, maxBatch, Gathering.NONE, clock, ticker);
    }

    /**
     * Claims work for the workers a write frees, in the write's own round trip, so that a freed worker need not
     * wait for the claim loop to notice it and claim in a round trip of its own.
     */
    public interface Refill {
        /**
         * How many conflicts a write that frees {@code freed} workers claims: none while the pool stops, and
         * fewer than it frees when the pool holds fewer leases ahead of its workers than it did.
         */
        int wanted(int freed);

        /** Adds a claim of up to {@code limit} conflicts to {@code trip}, which has turned cross-tenant. */
        OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit);

        /**
         * Reads back what the write's trip claimed, inside the write's own transaction (open on
         * {@code connection}), so that write, claim and read-back commit as one; may commit that transaction
         * itself, in the read's round trip (the caller's commit then has nothing left to do).
         */
        LeaseReader.ReadAhead readBack(Connection connection, List<Lease> leases);

        /**
         * Takes what a write's trip claimed, with what was read back of it, once it committed and before the
         * written ends are reported: the workers those ends free go on to these conflicts.
         */
        void claimed(List<Lease> leases, LeaseReader.ReadAhead readAhead);
    }

    /**
     * What the write of a result did: whether its fence let it apply (false: the lease had passed to another
     * holder, nothing but its paid calls written) and, for a retry, when the row was released and may be
     * claimed again by the database clock.
     */
    record Written(boolean applied, Optional<ConflictLeases.Release> release) {
    }

    private record Pending(AttemptResult result, CompletableFuture<Written> written) {
    }

    /** Starts the writers, whose writes claim through {@code refill} for the workers they free. */
    public synchronized void start(String threadPrefix, Refill refill) {
        this.refill = refill;
        for (int i = 1; i <= writers; i++) {
            Thread thread = new Thread(this::writeUntilStopped, threadPrefix + "-completer-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    /** Writes everything handed in so far, then ends the threads. */
    public synchronized void stop() throws InterruptedException {
        stopped = true;
        for (Thread thread : threads) {
            thread.join();
        }
        threads.clear();
        writeLeftovers();
    }

    /**
     * Hands {@code result} in to be written. The future completes once it is written (or found its lease gone),
     * or with what the write threw. A {@link AttemptResult.Skipped} writes nothing and completes at once.
     */
    CompletableFuture<Written> complete(AttemptResult result) {
        if (result instanceof AttemptResult.Skipped) {
            return CompletableFuture.completedFuture(new Written(false, Optional.empty()));
        }
        Pending pending = new Pending(result, new CompletableFuture<>());
        if (stopped) {
            write(List.of(pending), false);
            return pending.written();
        }
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(pending);
                break;
            } catch (InterruptedException e) {
                // A finished attempt is not dropped: the wait for room is short, as the writers keep going.
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
        return pending.written();
    }

    private void writeUntilStopped() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        while (true) {
            Pending first;
            try {
                first = queue.poll(IDLE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                LOG.warn("An attempt completer thread was interrupted; stop() writes what it leaves");
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
            gatherMore(batch);
            write(batch, true);
        }
    }

    /**
     * Waits up to the gathering's {@code atMost} for {@code batch} to reach its size. Interrupted, it stops
     * waiting and leaves the batch to be written; the writer's next wait for work sees the interrupt and ends.
     */
    private void gatherMore(List<Pending> batch) {
        int size = gathering.size();
        if (batch.size() >= size || stopped) {
            return;
        }
        long deadline = ticker.nanos() + gathering.atMost().toNanos();
        int held = batch.size();
        heldWhileGathering.addAndGet(held);
        try {
            while (batch.size() < size && batch.size() < maxBatch) {
                long left = deadline - ticker.nanos();
                Pending next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
                if (next == null) {
                    return;
                }
                batch.add(next);
                queue.drainTo(batch, maxBatch - batch.size());
                heldWhileGathering.addAndGet(batch.size() - held);
                held = batch.size();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            heldWhileGathering.addAndGet(-held);
        }
    }

    /**
     * Results the writers have taken and hold back while they wait for more to share the commit: how a test
     * sees that a result is gathering, rather than written at once or not yet taken.
     */
    int heldWhileGathering() {
        return heldWhileGathering.get();
    }

    private void writeLeftovers() {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(pending -> write(List.of(pending), false));
    }

    /**
     * Writes {@code batch}, completing each result's future: the one retry of a write against an unavailable
     * database. While the database is unavailable the batch is tried again after a short pause, for as long as
     * each result's lease lasts: the synthesizer call behind a merge may have been expensive, and an attempt that
     * ends in a hand-back should not come to count because its lease expired. A result whose lease runs out
     * meanwhile (or any result once the completer is stopping) fails with the last error.
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
                    if (!stopped && pending.result().lease().heldUntil().allows(wait)) {
                        keep.add(pending);
                    } else {
                        pending.written().completeExceptionally(e);
                    }
                }
                if (keep.isEmpty()) {
                    return;
                }
                storeFailures.failed(e, wait);
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException interrupted) {
                    keep.forEach(pending -> pending.written().completeExceptionally(e));
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
     * the bad one reports its failure. A lone result is written again only if its trip also claimed: the claim
     * may have been what failed.
     */
    private void writeEachAlone(List<Pending> batch, Throwable failure, boolean claimed) {
        if (batch.size() == 1 && !claimed) {
            batch.get(0).written().completeExceptionally(failure);
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
    private void writeTogether(List<Pending> unordered, boolean claim) {
        // In org order: a result with paid calls adds to its org's month total (schema 14), a row lock held to the
        // commit, and two batches that take those locks in one order cannot deadlock.
        List<Pending> batch = new ArrayList<>(unordered);
        batch.sort(BY_ORG);
        OneTripBatch trip = OneTripBatch.tenant();
        List<Supplier<Written>> written = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            written.add(add(trip, pending.result()));
        }
        OneTripBatch.Result<List<Lease>> next = null;
        int wanted = claim ? refill.wanted(batch.size()) : 0;
        if (wanted > 0) {
            next = refill.claim(trip.crossTenantFromHere(), wanted);
        }
        LeaseReader.ReadAhead readAhead = LeaseReader.ReadAhead.NONE;
        if (next == null) {
            trip.run(transactions);
        } else {
            OneTripBatch.Result<List<Lease>> claimed = next;
            readAhead = transactions.inPlainTransaction(connection -> {
                trip.runWithin(connection);
                return refill.readBack(connection, claimed.get());
            });
        }
        if (next != null && !next.get().isEmpty()) {
            refill.claimed(next.get(), readAhead);
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).written().complete(written.get(i).get());
        }
    }

    /** Adds the statement that writes {@code result} to {@code trip}; what it wrote, once the trip has run. */
    private static Supplier<Written> add(OneTripBatch trip, AttemptResult result) {
        Lease lease = result.lease();
        UUID org = result.scopeOrg();
        if (result instanceof AttemptResult.Stored merge) {
            OneTripBatch.Result<Integer> stored = merge.calls().isEmpty()
                    ? ConflictLeases.storeMerge(trip, org, lease, merge.mergeJson(), merge.eventDetailsJson())
                    : ConflictLeases.storeMerge(trip, org, lease, merge.mergeJson(), merge.eventDetailsJson(),
                            merge.attempt(), merge.calls());
            return () -> new Written(stored.get() == 1, Optional.empty());
        }
        if (result instanceof AttemptResult.Retry retry) {
            OneTripBatch.Result<Optional<ConflictLeases.Release>> release = ConflictLeases.releaseForRetry(trip, org,
                    lease, retry.reason().label(), retry.delay(), ending(retry, AttemptHistory.TRANSIENT_FAILURE,
                            retry.reason().label(), retry.detail()));
            return () -> new Written(release.get().isPresent(), release.get());
        }
        if (result instanceof AttemptResult.GiveUp giveUp) {
            return applied(ConflictLeases.markPermanent(trip, org, lease, giveUp.reason().label(),
                    giveUp.eventDetailsJson(),
                    ending(giveUp, AttemptHistory.PERMANENT_FAILURE, giveUp.reason().label(), giveUp.detail())));
        }
        if (result instanceof AttemptResult.HandBack handBack) {
            return applied(ConflictLeases.handBack(trip, org, lease, handBack.lastFailureReason(), handBack.delay(),
                    ending(handBack, handBack.historyOutcome(), handBack.reason(), handBack.detail())));
        }
        if (result instanceof AttemptResult.Park park) {
            return applied(ConflictLeases.park(trip, org, lease, park.state(),
                    ending(park, AttemptHistory.DEFERRED, park.reason(), park.detail())));
        }
        throw new IllegalArgumentException("nothing to write for " + result);
    }

    private static ConflictLeases.Ending ending(AttemptResult result, String outcome, String reason, String detail) {
        return new ConflictLeases.Ending(result.attempt(), outcome, reason, detail, result.calls());
    }

    private static Supplier<Written> applied(OneTripBatch.Result<Boolean> applied) {
        return () -> new Written(applied.get(), Optional.empty());
    }
}
