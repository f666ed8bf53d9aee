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
import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.synthesis.OrgModelCheck;
import io.mergesynthesis.service.synthesis.SuggestedMergeJson;
import io.mergesynthesis.service.worker.FailureStreak;
import io.mergesynthesis.service.worker.Outcome;
import io.mergesynthesis.service.worker.RetryPause;
import io.mergesynthesis.service.worker.RetryScheduled;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.attempt.AttemptCompleter;
import io.mergesynthesis.service.worker.attempt.AttemptCounter;
import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.service.worker.attempt.MergeMaker;
import io.mergesynthesis.service.worker.attempt.SynthesisCall;
import io.mergesynthesis.service.worker.policy.AttemptTracker;
import io.mergesynthesis.service.worker.policy.RetryPolicy;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's worker pool: {@code workers} threads fed by one claim loop. The loop claims as many conflicts
 * as there are free workers and hands them to the reader thread, which reads them all back in one
 * transaction ({@link LeaseReader}) and hands one lease to each worker. The loop meanwhile waits: for a worker
 * to free up when the last claim filled every free worker (more may be waiting), otherwise for a NOTIFY from
 * ingest or the poll interval, whichever comes first. Workers hand how their attempts ended to the
 * {@link AttemptCompleter}, which writes those that are ready at the same moment in one commit; a worker is free
 * again once its attempt's end is written, so a replica never has more conflicts in hand than it has workers.
 * The completer's commit also claims as many conflicts as it frees workers, and those workers go straight on to
 * them; the claim loop claims for workers freed any other way. Any number of replicas may run against one database.
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
    /**
     * Two writers: merges that arrive while one writes go out with the other at once, not after the first
     * commit. With one writer the workers fell into step (all freed by one commit, all done again together,
     * then all waiting on the next commit) and a drain ran at the pace of commit plus merge; with two, a commit
     * overlaps the next merges. Batches still grow with the load, as each writer takes everything queued, and a
     * writer waits a moment to gather its share of the workers' results ({@link AttemptCompleter.Gathering}).
     */
    private static final int COMPLETER_WRITERS = 2;

    private final PoolSettings settings;
    private final LeaseClaimer claimer;
    private final LeaseReader reader;
    private final AttemptRunner runner;
    private final SynthesisCall call;
    private final AttemptCompleter completer;
    private final Waiter waiter = new Waiter();
    private final Optional<PendingListener> listener;
    private final Semaphore freeWorkers;
    private final FailureStreak claimFailures;
    private final AtomicInteger lostWorkers = new AtomicInteger();
    /** Permits that finished workers hand straight on to the leases their store claimed, instead of releasing. */
    private final AtomicInteger handedOver = new AtomicInteger();
    private volatile boolean stopping;
    /** Until when (System.nanoTime) the provider asked this replica to wait: nothing is claimed for it meanwhile. */
    private final AtomicLong claimsPausedUntil = new AtomicLong(System.nanoTime());
    private volatile boolean saturated;
    private volatile Thread loop;
    private ExecutorService workers;
    private ExecutorService reading;

    private SynthesisPool(Builder builder) {
        this.settings = builder.settings;
        SynthesisMetrics metrics = builder.metrics;
        AttemptCounter counter = new AttemptCounter(
                new AttemptTracker(settings.attemptTrackerSize(), builder.clock),
                RetryPolicy.cappedExponential(settings.baseBackoff(), settings.maxAttempts()), metrics);
        this.call = new SynthesisCall(builder.synthesizer, settings.invokeTimeout(), threadPrefix());
        this.claimer = new LeaseClaimer(builder.transactions, settings.owner(), settings.leaseDuration(), metrics);
        this.reader = new LeaseReader(builder.transactions, builder.orgScope);
        this.completer = new AttemptCompleter(builder.transactions, COMPLETER_WRITERS, settings.workers() * 2,
                AttemptCompleter.Gathering.forPool(settings.workers(), COMPLETER_WRITERS), builder.clock,
                new StoreRefill());
        this.runner = new AttemptRunner(builder.transactions,
                new MergeMaker(builder.router, builder.orgModels, call, builder.mergeJson, metrics),
                counter, completer, metrics, builder.clock, new RunnerSide(builder.orgScope, builder.retries));
        this.listener = settings.listen() && builder.listenConnection != null
                ? Optional.of(new PendingListener(builder.listenConnection, waiter, builder.clock)) : Optional.empty();
        this.freeWorkers = new Semaphore(settings.workers());
        this.claimFailures = new FailureStreak(LOG, "Synthesis pool " + settings.owner() + ": claiming",
                builder.clock);
    }

    public static Builder builder(PoolSettings settings, ScopedTransactions transactions,
                                  MergeSynthesizer synthesizer, SynthesisMetrics metrics) {
        return new Builder(settings, transactions, synthesizer, metrics);
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
        completer.start(threadPrefix());
        listener.ifPresent(l -> l.start(threadPrefix() + "-listener"));
        loop = new Thread(this::claimUntilStopped, threadPrefix() + "-claim");
        loop.setDaemon(true);
        loop.start();
        LOG.info("Synthesis pool {} started: {} workers, synthesizer {}, {}", settings.owner(), settings.workers(),
                call.synthesizerName(), listener.isPresent() ? "woken by NOTIFY" : "polling only");
    }

    @Override
    public void stop() throws Exception {
        stopping = true;
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
        long graceEnds = System.nanoTime() + settings.shutdownGrace().toNanos();
        if (reading != null) {
            // Claims already made are read and dispatched before the workers stop taking work.
            reading.shutdown();
            reading.awaitTermination(graceEnds - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        if (workers != null) {
            workers.shutdown();
            if (!workers.awaitTermination(graceEnds - System.nanoTime(), TimeUnit.NANOSECONDS)) {
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
        if (stopping) {
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

    /** How many times the LISTEN connection has been (re)established; 0 when only polling. */
    public int listenConnectionsMade() {
        return listener.map(PendingListener::connectionsMade).orElse(0);
    }

    private void claimUntilStopped() {
        RetryPause errorPause = new RetryPause(CLAIM_RETRY_FIRST, CLAIM_RETRY_LAST);
        while (!stopping) {
            try {
                long paused = claimsPausedUntil.get() - System.nanoTime();
                if (paused > 0) {
                    // A claim now would only be handed straight back: the provider asked to wait this long.
                    waiter.await(Duration.ofNanos(paused));
                    continue;
                }
                int free = freeWorkers.availablePermits();
                if (free == 0) {
                    waiter.await(settings.pollInterval());
                    continue;
                }
                LeaseClaimer.Claim claim = claimer.claim(free);
                if (claimFailures.succeeded()) {
                    // The database is back: the listener need not sit out the rest of its own, longer pause.
                    listener.ifPresent(PendingListener::reconnectNow);
                }
                errorPause.reset();
                saturated = claim.leases().size() == free;
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
     * so that the row is due by the database clock when the claim runs). NOTIFY cuts either short.
     */
    private Duration idleWait(LeaseClaimer.Claim claim) {
        return claim.nextDueIn()
                .map(due -> due.plus(DUE_MARGIN))
                .filter(due -> due.compareTo(settings.pollInterval()) < 0)
                .orElse(settings.pollInterval());
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
        freeWorkers.acquireUninterruptibly(leases.size());
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
     * Runs one lease on a worker thread. The worker counts as busy until the attempt's outcome is written, not
     * merely until it hands its merge to the completer: the lease is held until then, and a replica must never
     * have more conflicts in hand than it has workers, or a crash while stores are slow would lose more
     * synthesizer calls than that.
     */
    private void dispatch(Lease lease, LeaseReader.ReadAhead readAhead) {
        try {
            runOnWorker(lease, readAhead);
        } catch (RejectedExecutionException stopped) {
            handBackUnused(lease);
        }
    }

    private void runOnWorker(Lease lease, LeaseReader.ReadAhead readAhead) {
        workers.execute(() -> {
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
     * A lease that arrived as the pool stopped, which no worker will take: given back at once and uncounted, so
     * it need not wait for its expiry, and its worker freed.
     */
    private void handBackUnused(Lease lease) {
        runner.handBack(lease).whenComplete((outcome, error) -> freeWorker());
    }

    private void freeWorker() {
        // A store that also claimed work hands the permits of the workers it freed on to the new leases.
        if (handedOver.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return;
        }
        freeWorkers.release();
        if (saturated) {
            waiter.wake();
        }
    }

    /** What the attempt runner asks of the pool. */
    private final class RunnerSide implements AttemptRunner.Pool {
        private final UnaryOperator<UUID> orgScope;
        private final Consumer<RetryScheduled> retries;

        RunnerSide(UnaryOperator<UUID> orgScope, Consumer<RetryScheduled> retries) {
            this.orgScope = orgScope;
            this.retries = retries;
        }

        @Override
        public boolean stopping() {
            return stopping;
        }

        @Override
        public UUID scopeOf(UUID orgId) {
            return orgScope.apply(orgId);
        }

        /**
         * The provider asked the whole replica to wait {@code retryAfter} (a rate limit, an overload, a refused
         * key): the claim loop and the completer's refill claim nothing until then. Leases already held are
         * tried, and deferred uncounted, as they come.
         */
        @Override
        public void pauseClaims(Duration retryAfter) {
            long until = System.nanoTime() + retryAfter.toNanos();
            claimsPausedUntil.accumulateAndGet(until, Math::max);
        }

        @Override
        public void retryScheduled(RetryScheduled retry) {
            retries.accept(retry);
        }
    }

    private boolean claimsPaused() {
        return claimsPausedUntil.get() - System.nanoTime() > 0;
    }

    /** What the attempt completer claims for the workers its writes free (see {@link AttemptCompleter.Refill}). */
    private final class StoreRefill implements AttemptCompleter.Refill {
        @Override
        public boolean wanted() {
            return !stopping && !claimsPaused();
        }

        @Override
        public OneTripBatch.Result<List<Lease>> claim(OneTripBatch trip, int limit) {
            return claimer.claimInto(trip, limit);
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
        return "synthesis-" + settings.owner();
    }

    /** Wires a pool; everything but the four required parts has a production default. */
    public static final class Builder {
        private final PoolSettings settings;
        private final ScopedTransactions transactions;
        private final MergeSynthesizer synthesizer;
        private final SynthesisMetrics metrics;
        private Router router = new StubRouter();
        private OrgModelCheck orgModels = OrgModelCheck.NONE;
        private Clock clock = Clock.systemUTC();
        private SuggestedMergeJson mergeJson = new SuggestedMergeJson();
        private DedicatedConnection listenConnection;
        private UnaryOperator<UUID> orgScope = UnaryOperator.identity();
        private Consumer<RetryScheduled> retries = retry -> { };

        private Builder(PoolSettings settings, ScopedTransactions transactions, MergeSynthesizer synthesizer,
                        SynthesisMetrics metrics) {
            this.settings = settings;
            this.transactions = transactions;
            this.synthesizer = synthesizer;
            this.metrics = metrics;
        }

        public Builder router(Router router) {
            this.router = router;
            return this;
        }

        /** Whether this replica can serve an org's own model; the default ignores org models, as the stub does. */
        public Builder orgModels(OrgModelCheck orgModels) {
            this.orgModels = orgModels;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder mergeJson(SuggestedMergeJson mergeJson) {
            this.mergeJson = mergeJson;
            return this;
        }

        /** Where the LISTEN connection comes from; without one (or with {@code listen} off) the pool only polls. */
        public Builder listenConnection(DedicatedConnection opener) {
            this.listenConnection = opener;
            return this;
        }

        /**
         * Which org a leased conflict's transactions are scoped to, given the org the claim returned. Always the
         * identity in the product; tests point it elsewhere to show that a wrong scope fails closed.
         */
        public Builder orgScope(UnaryOperator<UUID> orgScope) {
            this.orgScope = orgScope;
            return this;
        }

        /** Told of every retry scheduled, with the backoff written; for logs and tests. */
        public Builder onRetryScheduled(Consumer<RetryScheduled> retries) {
            this.retries = retries;
            return this;
        }

        public SynthesisPool build() {
            return new SynthesisPool(this);
        }
    }
}
