package io.mergesynthesis.service.worker.pool;

/*
 * ======================================================================================================
 *  THE SEAM. Every synthesizer plugs into this pool the same way: the deterministic stub, the LLM
 *  synthesizer, and any third party's. Each implements io.mergesynthesis.synthesis.MergeSynthesizer, is
 *  selected by synthesis.synthesizer through its MergeSynthesizerProvider, and receives its model from
 *  Router.resolve("conflict.merge_synthesis", orgId, orgModelSetting). The pool relies on that contract as
 *  it stands: the synthesizer is thread-safe, never touches the database, may be interrupted at the invoke
 *  timeout, and returns a SuggestedMerge that must pass suggested-merge.schema.json and the merge check.
 *
 *  Do not change the seam (the synthesis-api module, or how this package calls it) without coordinating
 *  with the authors of the synthesizers built against it, third parties included (docs/synthesizers.md).
 * ======================================================================================================
 */

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.worker.FailureStreak;
import io.mergesynthesis.service.worker.Outcome;
import io.mergesynthesis.service.worker.RetryPause;
import io.mergesynthesis.service.worker.attempt.AttemptCompleter;
import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.service.worker.attempt.SynthesisCall;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.Ticker;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's worker pool: {@code workers} threads fed by one claim loop. The loop claims as many conflicts
 * as there are free workers, and as many more as the workers finish while a store makes its round trip when their
 * merges cost nothing ({@link LeasesAhead}), and hands them to the reader thread, which reads them all back in one
 * transaction ({@link LeaseReader}) and hands the leases on to the workers, where those ahead wait for a thread.
 * The loop meanwhile waits for a worker to free up, for a NOTIFY from ingest, or for the poll interval (or the
 * next backoff or lease end, when its last claim found nothing more), whichever comes first. Workers hand how
 * their attempts ended to the {@link AttemptCompleter}, which writes those that are ready at the same moment in
 * one commit; a lease's place is free again once its attempt's end is written, so a replica never has more paid
 * calls in hand than it has workers. The completer's commit also claims as many conflicts as it frees places,
 * and those leases go straight on to the workers; the claim loop claims for places freed any other way. Any
 * number of replicas may run against one database.
 *
 * <p>On stop it claims nothing more, lets work already in the synthesizer finish within the shutdown grace,
 * and hands back leases whose synthesizer call had not started.
 */
public final class SynthesisPool implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(SynthesisPool.class);
    /** Pauses between failed claims: 250 ms doubling to 2 s, so a claim is tried every 2 s at most. */
    private static final Duration CLAIM_RETRY_FIRST = Duration.ofMillis(250);
    private static final Duration CLAIM_RETRY_LAST = Duration.ofSeconds(2);
    private static final Duration DUE_MARGIN = Duration.ofMillis(5);

    private final PoolSettings settings;
    private final LeaseClaimer claimer;
    private final LeaseReader reader;
    private final AttemptRunner runner;
    private final SynthesisCall call;
    private final AttemptCompleter completer;
    private final ClaimHold hold;
    private final Waiter waiter;
    private final Optional<PendingListener> listener;
    private final Ticker ticker;
    private final Clock clock;
    /** When a lease last went to a worker, for the replica's heartbeat; null until the first. */
    private volatile Instant lastClaim;
    /** Room for leases: one per worker and one per lease the pool may hold ahead of them. */
    private final Semaphore leaseRoom;
    private final LeasesAhead ahead;
    private final FailureStreak claimFailures;
    private final AtomicInteger lostWorkers = new AtomicInteger();
    /** Leases held ahead that are being given back, unstarted, because none are wanted ahead any more. */
    private final AtomicInteger givingBack = new AtomicInteger();
    /** Permits that finished workers hand straight on to the leases their store claimed, instead of releasing. */
    private final AtomicInteger handedOver = new AtomicInteger();
    /** Rounds of the claim loop so far, for {@link #claimRounds()}. */
    private final AtomicLong claimRounds = new AtomicLong();
    private volatile Thread loop;
    private ExecutorService workers;
    private ExecutorService reading;

    /**
     * The parts of a pool, each built once by the worker's wiring: {@code runner} runs in {@code hold}, and
     * {@code listener} wakes {@code waiter}, where the claim loop idles.
     */
    public record Parts(LeaseClaimer claimer, LeaseReader reader, SynthesisCall call, AttemptRunner runner,
                        AttemptCompleter completer, ClaimHold hold, Waiter waiter,
                        Optional<PendingListener> listener, LeasesAhead ahead) {
    }

    /**
     * @param clock  for the claim loop's log of failed claims
     * @param ticker what the shutdown grace is reckoned on, like every other deadline of the worker
     */
    public SynthesisPool(PoolSettings settings, Parts parts, Clock clock, Ticker ticker) {
        this.settings = settings;
        this.claimer = parts.claimer();
        this.reader = parts.reader();
        this.call = parts.call();
        this.runner = parts.runner();
        this.completer = parts.completer();
        this.hold = parts.hold();
        this.waiter = parts.waiter();
        this.listener = parts.listener();
        this.ticker = ticker;
        this.clock = clock;
        this.ahead = parts.ahead();
        this.leaseRoom = new Semaphore(settings.workers() + ahead.most());
        this.claimFailures = new FailureStreak(LOG, "Synthesis pool " + settings.owner() + ": claiming", clock);
    }

    @Override
    public synchronized void start() {
        if (loop != null) {
            throw new IllegalStateException("the pool " + settings.owner() + " was already started");
        }
        AtomicInteger count = new AtomicInteger();
        workers = Executors.newFixedThreadPool(settings.workers(), task -> {
            Thread thread = new Thread(task, threadPrefix() + "-worker-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        reading = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, threadPrefix() + "-reader");
            thread.setDaemon(true);
            return thread;
        });
        completer.start(threadPrefix(), new StoreRefill());
        listener.ifPresent(l -> l.start(threadPrefix() + "-listener"));
        loop = new Thread(this::claimUntilStopped, threadPrefix() + "-claim");
        loop.setDaemon(true);
        loop.start();
        LOG.info("Synthesis pool {} started: {} workers, synthesizer {}, {}", settings.owner(), settings.workers(),
                call.synthesizerName(), listener.isPresent() ? "woken by NOTIFY" : "polling only");
    }

    @Override
    public void stop() throws Exception {
        hold.stop();
        waiter.wake();
        Thread claimLoop = loop;
        if (claimLoop != null) {
            claimLoop.join();
        }
        if (listener.isPresent()) {
            listener.get().stop();
        }
        // One grace for the whole stop: reading back the last claim and finishing the work share it, so an
        // operator's termination timeout of a little more than the grace is always enough.
        long graceEnds = ticker.nanos() + settings.shutdownGrace().toNanos();
        if (reading != null) {
            // Claims already made are read and dispatched before the workers stop taking work.
            reading.shutdown();
            reading.awaitTermination(graceEnds - ticker.nanos(), TimeUnit.NANOSECONDS);
        }
        if (workers != null) {
            workers.shutdown();
            if (!workers.awaitTermination(graceEnds - ticker.nanos(), TimeUnit.NANOSECONDS)) {
                LOG.warn("Synthesis pool {}: work still running after the shutdown grace of {}; interrupting it, "
                        + "its leases will expire", settings.owner(), PoolSettings.show(settings.shutdownGrace()));
                workers.shutdownNow();
            }
        }
        completer.stop();
        call.shutdown();
        LOG.info("Synthesis pool {} stopped", settings.owner());
    }

    /** Why the pool cannot do its work, or empty when it can. */
    public Optional<String> problem() {
        Thread claimLoop = loop;
        if (claimLoop == null) {
            return Optional.of("the pool has not been started");
        }
        if (hold.stopping()) {
            return Optional.of("the pool is stopping");
        }
        if (!claimLoop.isAlive()) {
            return Optional.of("the claim loop thread has died");
        }
        if (workers.isShutdown()) {
            return Optional.of("the worker threads have been shut down");
        }
        if (lostWorkers.get() > 0) {
            return Optional.of(lostWorkers.get() + " worker thread(s) died of an unexpected error");
        }
        return Optional.empty();
    }

    public String owner() {
        return settings.owner();
    }

    /** How many workers this pool runs. */
    public int workerCount() {
        return settings.workers();
    }

    /** How many workers hold a lease now, read without a lock: a moment's figure for the heartbeat. */
    public int inFlight() {
        return Math.min(settings.workers(), leasesHeld());
    }

    /** How many leases the pool would hold ahead of its workers now, at most ({@link LeasesAhead}). */
    public int leasesAhead() {
        return ahead.count();
    }

    /** How many leases this pool holds ahead of its workers now, read without a lock: for the metrics. */
    public int leasesHeldAhead() {
        return Math.max(0, leasesHeld() - settings.workers());
    }

    /** How many leases this pool holds now, those waiting ahead of the workers included. */
    int leasesHeld() {
        return Math.max(0, settings.workers() + ahead.most() - leaseRoom.availablePermits());
    }

    /** How many more leases the pool takes now: the room left once what is not held ahead now is set aside. */
    private int room() {
        return leaseRoom.availablePermits() - (ahead.most() - ahead.count());
    }

    /** When a lease last went to a worker; null if none has yet. */
    public Instant lastClaim() {
        return lastClaim;
    }

    /** How many times the LISTEN connection has been (re)established; 0 when only polling. */
    public int listenConnectionsMade() {
        return listener.map(PendingListener::connectionsMade).orElse(0);
    }

    /**
     * How many times new conflicts were heard of by NOTIFY, each counted once the claims know of them (their next
     * walks the waiting orgs); 0 when only polling.
     */
    public int notificationsHeard() {
        return listener.map(PendingListener::notificationsHeard).orElse(0);
    }

    /**
     * How many rounds the claim loop has begun: in each it looks for free workers and claims for them if there
     * are any. Whoever must know that the loop had its chances to claim (and claimed nothing it should not have)
     * waits for a few more rounds instead of for a stretch of time.
     */
    public long claimRounds() {
        return claimRounds.get();
    }

    private void claimUntilStopped() {
        RetryPause errorPause = new RetryPause(CLAIM_RETRY_FIRST, CLAIM_RETRY_LAST);
        while (!hold.stopping()) {
            claimRounds.incrementAndGet();
            try {
                int free = room();
                if (free <= 0) {
                    waiter.await(settings.pollInterval());
                    continue;
                }
                // The routes of a provider that asked to wait are left out, and those whose hold ended lately give
                // one conflict a claim: more of theirs would only be handed straight back.
                LeaseClaimer.Claim claim = claimer.claim(free, hold.routes());
                if (claimFailures.succeeded()) {
                    // The database is back, perhaps on another server: the listener reconnects now.
                    listener.ifPresent(PendingListener::databaseBack);
                }
                errorPause.reset();
                boolean saturated = claim.leases().size() == free;
                dispatch(claim.leases());
                if (!saturated) {
                    waiter.await(idleWait(claim));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // Short pauses, so that work resumes within seconds of the database's return; the listener's
                // reconnection wakes the loop sooner still. The streak keeps the log to a few lines.
                Duration pause = errorPause.next();
                claimFailures.failed(e, pause);
                if (DatabaseUnavailable.isCauseOf(e)) {
                    listener.ifPresent(PendingListener::databaseLost);
                }
                try {
                    waiter.await(pause);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /**
     * Until the poll interval, or until the next backoff or lease ends if that comes sooner (plus a little,
     * so that the row is due by the database clock when the claim runs), or until a held route is let go. NOTIFY
     * cuts any of them short.
     */
    private Duration idleWait(LeaseClaimer.Claim claim) {
        Duration wait = claim.nextDueIn()
                .map(due -> due.plus(DUE_MARGIN))
                .filter(due -> due.compareTo(settings.pollInterval()) < 0)
                .orElse(settings.pollInterval());
        long held = hold.nextHoldEndsIn();
        return held > 0 && held < wait.toNanos() ? Duration.ofNanos(held) : wait;
    }

    /**
     * Takes a worker for each lease at once (so the next claim asks only for the workers still free), and hands
     * the reading back of the rows to the reader thread, which passes each lease on to its worker: the claim
     * loop can claim again while the rows of the last claim are being read.
     */
    private void dispatch(List<Lease> leases) {
        if (leases.isEmpty()) {
            return;
        }
        leaseRoom.acquireUninterruptibly(leases.size());
        readAndDispatch(leases);
    }

    /** Hands leases whose workers are already counted busy to the reader thread, which passes them on. */
    private void readAndDispatch(List<Lease> leases) {
        try {
            reading.execute(() -> {
                LeaseReader.ReadAhead readAhead = reader.read(leases);
                leases.forEach(lease -> dispatch(lease, readAhead));
            });
        } catch (RejectedExecutionException stopped) {
            leases.forEach(this::handBackUnused);
        }
    }

    /**
     * Runs one lease on a worker thread, or queues it for the next free one when it is held ahead. Its place
     * counts as taken until the attempt's outcome is written, not merely until the merge is handed to the
     * completer: the lease is held until then, and a replica must never have more paid calls in hand than it has
     * workers, or a crash while stores are slow would lose more than that ({@link LeasesAhead} holds none ahead
     * while merges are paid for).
     */
    private void dispatch(Lease lease, LeaseReader.ReadAhead readAhead) {
        lastClaim = clock.instant();
        try {
            runOnWorker(lease, readAhead);
        } catch (RejectedExecutionException stopped) {
            handBackUnused(lease);
        }
    }

    private void runOnWorker(Lease lease, LeaseReader.ReadAhead readAhead) {
        workers.execute(() -> {
            if (noLongerWantedAhead()) {
                giveBackAhead(lease);
                return;
            }
            CompletableFuture<Optional<Outcome>> attempt;
            try {
                attempt = runner.run(lease, readAhead);
            } catch (RuntimeException | Error e) {
                lostWorkers.incrementAndGet();
                LOG.error("Synthesis pool {}: a worker failed outside any attempt on conflict {}", settings.owner(),
                        lease.conflictId(), e);
                freeWorker();
                throw e;
            }
            attempt.whenComplete((outcome, error) -> {
                if (error != null) {
                    lostWorkers.incrementAndGet();
                    LOG.error("Synthesis pool {}: storing the outcome of conflict {} failed outside any attempt",
                            settings.owner(), lease.conflictId(), error);
                }
                freeWorker();
            });
        });
    }

    /**
     * Whether the lease a worker is about to start is one more than the pool now holds ahead of its workers: they
     * hold none ahead any more (the merges slowed down, or were paid for), and more leases are held than workers,
     * less those already on their way back. Only when none are held ahead, so that a count that moves between
     * busy moments costs no lease its place.
     */
    private boolean noLongerWantedAhead() {
        return ahead.count() == 0 && leasesHeld() - givingBack.get() > settings.workers();
    }

    /**
     * Gives back a lease held ahead that is no longer wanted, unstarted and uncounted, so that the next claim puts
     * the fair order first again: a conflict reported meanwhile by an org with nothing else waiting comes before
     * the leases taken while merges were fast.
     */
    private void giveBackAhead(Lease lease) {
        givingBack.incrementAndGet();
        runner.handBack(lease).whenComplete((outcome, error) -> {
            // Its place first: between the two it still counts as on its way back, though no longer held, and a
            // worker starting then may keep a lease it could have given back, never give back one too many.
            freeWorker();
            givingBack.decrementAndGet();
        });
    }

    /**
     * A lease that arrived as the pool stopped, which no worker will take: given back at once and uncounted, so
     * it need not wait for its expiry, and its worker freed.
     */
    private void handBackUnused(Lease lease) {
        runner.handBack(lease).whenComplete((outcome, error) -> freeWorker());
    }

    private void freeWorker() {
        // A store that also claimed work hands the permits of the workers it freed on to the new leases.
        if (handedOver.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            if (room() > 0) {
                // More are to be held ahead than when the store claimed: the loop claims them.
                waiter.wake();
            }
            return;
        }
        leaseRoom.release();
        // Whatever the loop's last claim found: a store's claim that came back short named orgs from a picture up to
        // a quarter of a second old, and the loop's own may have lost rows to claims beside it. The loop walks and
        // claims for this worker; with nothing due, that claim comes back empty and the loop sleeps again.
        waiter.wake();
    }

    /** What the attempt completer claims for the workers its writes free (see {@link AttemptCompleter.Refill}). */
    private final class StoreRefill implements AttemptCompleter.Refill {
        @Override
        public int wanted(int freed) {
            return hold.claimsWanted() ? Math.max(0, Math.min(freed, freed + room())) : 0;
        }

        @Override
        public OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit) {
            return claimer.claimInto(trip, limit, hold.routes()).map(claimed -> claimer.noted(claimed, limit));
        }

        @Override
        public LeaseReader.ReadAhead readBack(Connection connection, List<Lease> leases) {
            return reader.readThenCommit(connection, leases);
        }

        @Override
        public void claimed(List<Lease> leases, LeaseReader.ReadAhead readAhead) {
            claimer.counted(leases);
            // Called before the stores that freed these workers are reported: their permits go on to these
            // leases, so the claim loop never sees them free.
            handedOver.addAndGet(leases.size());
            // Read back already, in the store's transaction: straight to the workers, not via the reader.
            leases.forEach(lease -> dispatch(lease, readAhead));
        }
    }

    private String threadPrefix() {
        return threadPrefix(settings);
    }

    /** How the threads of the pool with {@code settings} are named: the replica shows in a thread dump. */
    public static String threadPrefix(PoolSettings settings) {
        return "synthesis-" + settings.owner();
    }
}
