package io.mergesynthesis.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.service.worker.pool.PoolSettings;

/**
 * The order of the measurements, and what each needs. Steps that run without the product (the ceilings) come
 * first, while no replica could compete for their rows; then one replica serves the idle, drain (paired with
 * db-scheduler's, which has a table of its own), scale, latency, inbox and export steps; the slow-synthesizer
 * replica runs after them, alone, and the provider-bound replicas (the LLM synthesizer against a rate-limited
 * stand-in provider) last. Every step starts from emptied tables. A step that fails is recorded and the others
 * still run.
 */
final class BenchPlan {

    private static final String REPLICA_HEAP = "512m";
    /** Back-to-back pairs of the pool's and db-scheduler's drains behind each headline figure. */
    private static final int PAIRS = 3;
    private static final Metric[] PAIRED_WITH_PEER = {Metric.DRAIN_ONE_REPLICA, Metric.DRAIN_JVM_CPU,
            Metric.DRAIN_POSTGRES_CPU, Metric.PEER, Metric.PEER_JVM_CPU, Metric.PEER_POSTGRES_CPU,
            Metric.POOL_TO_PEER};

    private final Options options;
    private final BenchDatabase db;
    private final Results results;
    private final Fixture fixture = Fixture.load();
    private final Seeder seeder;

    BenchPlan(Options options, BenchDatabase db, Results results) {
        this.options = options;
        this.db = db;
        this.results = results;
        this.seeder = new Seeder(db, fixture);
    }

    /** A step of the plan; anything it throws is recorded as that step's failure. */
    private interface Step {
        void run() throws Exception;
    }

    void runAll() throws Exception {
        // Reusing the big tenants' database empties nothing.
        db.guardAgainstWiping(options.wipe() || options.tenantReuse());
        progress("applying the product's migrations (db migrate)");
        ServiceCommand.run(options, db, "db-migrate", "db", "migrate");
        results.context.put("database", db.describe());

        if (options.tokenCache()) {
            db.reset();
            step("conflict reads", this::conflictReads, Metric.CONFLICT_READS, Metric.CONFLICT_READS_UNCACHED,
                    Metric.CONFLICT_READ_TX, Metric.CONFLICT_READ_UNCACHED_TX);
            results.ratio(Metric.TOKEN_CACHE_GAIN, Metric.CONFLICT_READS, Metric.CONFLICT_READS_UNCACHED);
            results.skipRemaining("not measured with --token-cache", Metric.values());
            return;
        }
        if (options.providerBound()) {
            db.reset();
            step("provider-bound", this::providerBound, Metric.provider());
            results.skipRemaining("not measured with --provider-bound", Metric.values());
            return;
        }
        if (options.providerTokens()) {
            db.reset();
            step("provider tokens", this::providerTokens, Metric.tokens(null, 0));
            results.skipRemaining("not measured with --provider-tokens", Metric.values());
            return;
        }
        if (options.fairShares()) {
            db.reset();
            step("fair shares", this::fairShares, Metric.fairShares());
            results.skipRemaining("not measured with --fair-shares", Metric.values());
            return;
        }
        if (options.batchLane()) {
            db.reset();
            step("batch lane", this::batchLane, Metric.batchLane());
            results.skipRemaining("not measured with --batch-lane", Metric.values());
            return;
        }
        if (options.workerScaling()) {
            db.reset();
            step("worker scaling", this::workerScaling, Metric.workers(0));
            results.skipRemaining("not measured with --worker-scaling", Metric.values());
            return;
        }
        if (options.latency()) {
            step("latency", this::latencyOnly, Metric.PICKUP_P50, Metric.PICKUP_P99, Metric.RECOVERY_P50,
                    Metric.RECOVERY_P99);
            results.skipRemaining("not measured with --latency", Metric.values());
            return;
        }
        if (options.scaleTenants()) {
            step("big tenants", this::bigTenants, Metric.tenants());
            results.skipRemaining("not measured with --scale-tenants", Metric.values());
            return;
        }
        step("ceiling", this::ceiling, Metric.CEILING);
        step("ceiling at the pool's bound", this::ceilingInHand, Metric.CEILING_IN_HAND);
        if (options.headline()) {
            step("drain, 1 replica", this::headlineDrain, PAIRED_WITH_PEER);
            ratios();
            results.skipRemaining("not measured with --headline", Metric.values());
            return;
        }
        step("scale, ceiling", this::scaleCeiling, Metric.SCALE_CEILING);
        step("replica steps", this::withPrimaryReplica, Metric.IDLE, Metric.DRAIN_ONE_REPLICA,
                Metric.DRAIN_JVM_CPU, Metric.DRAIN_POSTGRES_CPU, Metric.PEER, Metric.PEER_JVM_CPU,
                Metric.PEER_POSTGRES_CPU, Metric.POOL_TO_PEER, Metric.DRAIN_THREE_REPLICAS, Metric.SCALE_POOL,
                Metric.PICKUP_P50, Metric.PICKUP_P99,
                Metric.RECOVERY_P50, Metric.RECOVERY_P99,
                Metric.INBOX_P50, Metric.INBOX_P99, Metric.CONFLICT_READS, Metric.CONFLICT_READS_UNCACHED,
                Metric.CONFLICT_READ_TX, Metric.CONFLICT_READ_UNCACHED_TX,
                Metric.EXPORT_RATE, Metric.EXPORT_HEAP_MIN,
                Metric.EXPORT_HEAP_MAX);
        step("slow synthesizer", this::slowSynthesizer, Metric.SLOW_THROUGHPUT, Metric.SLOW_PEAK_CONNECTIONS,
                Metric.SLOW_MEAN_CONNECTIONS);
        step("provider-bound", this::providerBound, Metric.provider());
        if (options.quick()) {
            // Eight scenarios of fresh replicas would more than double a smoke run: --provider-tokens runs them.
            results.skipRemaining("not measured in a --quick run of every step; run --provider-tokens",
                    Metric.tokens(null, 0));
        } else {
            step("provider tokens", this::providerTokens, Metric.tokens(null, 0));
        }
        if (options.quick()) {
            // Five minutes of 1 s calls would more than double a smoke run: --fair-shares runs them.
            results.skipRemaining("not measured in a --quick run of every step; run --fair-shares",
                    Metric.fairShares());
        } else {
            step("fair shares", this::fairShares, Metric.fairShares());
        }
        step("worker scaling", this::workerScaling, Metric.workers(0));
        if (options.quick()) {
            // A replica of its own (started in 15 s on a busy machine), a batch delay and two drains would add
            // about forty seconds to a smoke run: --batch-lane --quick runs them.
            results.skipRemaining("not measured in a --quick run of every step; run --batch-lane --quick",
                    Metric.batchLane());
        } else {
            step("batch lane", this::batchLane, Metric.batchLane());
        }
        if (options.quick()) {
            // A database of a few thousand conflicts: the step's every read runs, in seconds, as a smoke test.
            step("big tenants", this::bigTenants, Metric.tenants());
        } else {
            results.skipRemaining("not measured in a run of every step: run --scale-tenants, which builds a "
                    + "database of " + options.tenantRows() + " conflicts of its own", Metric.tenants());
        }

        ratios();
    }

    private void ratios() {
        results.ratio(Metric.TOKEN_CACHE_GAIN, Metric.CONFLICT_READS, Metric.CONFLICT_READS_UNCACHED);
        results.ratio(Metric.POOL_TO_CEILING, Metric.DRAIN_ONE_REPLICA, Metric.CEILING);
        results.ratio(Metric.POOL_TO_CEILING_IN_HAND, Metric.DRAIN_ONE_REPLICA, Metric.CEILING_IN_HAND);
    }

    /**
     * The ceiling with no more conflicts in flight than the pool may have in hand (one per worker: a replica never
     * holds more leases than workers, so a crash loses at most that many calls). Not the headline, which keeps
     * the full ceiling; it shows how much of the gap is that bound and how much is the pool's own overhead.
     */
    private void ceilingInHand() throws Exception {
        db.reset();
        seeder.pendingOnHold("ceiling-in-hand", options.rows());
        db.settle();
        progress("ceiling at the pool's bound: " + options.rows() + " conflicts, " + options.workers()
                + " threads x 1 conflict");
        CeilingLoop.Drained drained = new CeilingLoop(db, fixture, options.workers(), 1).drainAll();
        requireAll(drained.rows(), options.rows(), "ceiling at the pool's bound");
        results.put(Metric.CEILING_IN_HAND, drained.perSecond());
    }

    private void ceiling() throws Exception {
        db.reset();
        progress("ceiling: warming up on " + options.warmUpRows() + " conflicts");
        seeder.pendingOnHold("ceiling-warm-up", options.warmUpRows());
        new CeilingLoop(db, fixture, options.workers()).drainAll();
        db.reset();
        seeder.pendingOnHold("ceiling", options.rows());
        db.settle();
        progress("ceiling: " + options.rows() + " conflicts through the pool's SQL on plain JDBC");
        CeilingLoop.Drained drained = new CeilingLoop(db, fixture, options.workers()).drainAll();
        requireAll(drained.rows(), options.rows(), "ceiling");
        results.put(Metric.CEILING, drained.perSecond());
    }

    private void scaleCeiling() throws Exception {
        db.reset();
        double first = 0;
        double last = 0;
        for (int history : options.scaleHistory()) {
            topUpHistory(history);
            seeder.pendingOnHold("scale-ceiling-" + history, options.scaleRows());
            db.settle();
            progress("scale, ceiling: " + options.scaleRows() + " conflicts over " + history + " finished ones");
            CeilingLoop.Drained drained = new CeilingLoop(db, fixture, options.workers()).drainAll();
            requireAll(drained.rows(), options.scaleRows(), "scale ceiling");
            results.scaleCeiling(history, drained.perSecond());
            first = first == 0 ? drained.perSecond() : first;
            last = drained.perSecond();
        }
        results.put(Metric.SCALE_CEILING, last / first);
    }

    private void withPrimaryReplica() throws Exception {
        db.reset();
        progress("starting replica-1");
        try (Replica primary = startReplica("replica-1", Map.of())) {
            step("idle cost", () -> idleCost(), Metric.IDLE);
            Optional<String> poolMissing = Capabilities.poolMissing(primary);
            results.note("worker_pool", poolMissing.orElse("present"));
            if (poolMissing.isPresent()) {
                results.skipRemaining(poolMissing.get(), PAIRED_WITH_PEER);
                results.skipRemaining(poolMissing.get(), Metric.DRAIN_THREE_REPLICAS, Metric.SCALE_POOL,
                        Metric.PICKUP_P50, Metric.PICKUP_P99, Metric.RECOVERY_P50, Metric.RECOVERY_P99);
            } else {
                step("drain, 1 replica", () -> drainOne(primary), PAIRED_WITH_PEER);
                step("drain, 3 replicas", () -> drainThree(), Metric.DRAIN_THREE_REPLICAS);
                step("scale, pool", () -> scalePool(), Metric.SCALE_POOL);
                step("pickup latency", () -> pickupLatency(), Metric.PICKUP_P50, Metric.PICKUP_P99);
                step("recovery latency", () -> recoveryLatency(), Metric.RECOVERY_P50, Metric.RECOVERY_P99);
            }
            step("inbox", () -> inbox(primary), Metric.INBOX_P50, Metric.INBOX_P99);
            step("conflict reads", () -> conflictReads(), Metric.CONFLICT_READS, Metric.CONFLICT_READS_UNCACHED,
                    Metric.CONFLICT_READ_TX, Metric.CONFLICT_READ_UNCACHED_TX);
            step("export", () -> export(primary), Metric.EXPORT_RATE, Metric.EXPORT_HEAP_MIN,
                    Metric.EXPORT_HEAP_MAX);
        }
    }

    /** One replica's drains paired with the peer's, right after the ceilings: the headline ratios, nothing else. */
    private void headlineDrain() throws Exception {
        db.reset();
        progress("starting replica-1");
        try (Replica primary = startReplica("replica-1", Map.of())) {
            Optional<String> poolMissing = Capabilities.poolMissing(primary);
            if (poolMissing.isPresent()) {
                results.skipRemaining(poolMissing.get(), PAIRED_WITH_PEER);
                return;
            }
            drainOne(primary);
        }
    }

    /** The two latency steps alone, on one replica: {@code --latency}. */
    private void latencyOnly() throws Exception {
        db.reset();
        progress("starting replica-1");
        try (Replica primary = startReplica("replica-1", Map.of())) {
            Optional<String> poolMissing = Capabilities.poolMissing(primary);
            if (poolMissing.isPresent()) {
                results.skipRemaining(poolMissing.get(), Metric.PICKUP_P50, Metric.PICKUP_P99,
                        Metric.RECOVERY_P50, Metric.RECOVERY_P99);
                return;
            }
            // The JIT compiles the pool's paths first, as in a service that has been running a while.
            warmUp();
            step("pickup latency", this::pickupLatency, Metric.PICKUP_P50, Metric.PICKUP_P99);
            step("recovery latency", this::recoveryLatency, Metric.RECOVERY_P50, Metric.RECOVERY_P99);
        }
    }

    private void idleCost() throws Exception {
        progress("idle cost: " + options.idleSeconds() + " s window after " + IdleCost.SETTLE_SECONDS
                + " s to settle");
        results.put(Metric.IDLE, new IdleCost(db).queriesPerSecond(IdleCost.SETTLE_SECONDS,
                options.idleSeconds()));
    }

    /**
     * One replica's drain and db-scheduler's, measured back to back in {@link #pairs()} pairs: pool, peer, pool,
     * peer. Each figure is the median of its pairs, and the ratio the median of the pairs' own ratios, so that
     * a minute when the shared machine is slower weighs on both sides of one pair rather than on one side of
     * the ratio. The peer has a table of its own; the replica stays up and idle during the peer's drains.
     */
    private void drainOne(Replica replica) throws Exception {
        warmUpUntilSettled(replica);
        DbSchedulerPeer peer = new DbSchedulerPeer(db, options.workers(), options.peerLead());
        progress("db-scheduler: warming up on " + options.warmUpRows() + " tasks");
        peer.drain(options.warmUpRows());
        if (options.jfr() || options.statements()) {
            db.reset();
            progress("drain, 1 replica: " + options.rows() + " conflicts, profiled (not one of the pairs)");
            profiledDrain(replica);
        }
        List<PairedDrain> pairs = new ArrayList<>();
        for (int pair = 1; pair <= pairs(); pair++) {
            db.reset();
            progress("drain, 1 replica: " + options.rows() + " conflicts (pair " + pair + " of " + pairs() + ")");
            DrainBenchmark.Drained pool = new DrainBenchmark(db, seeder).drain("drain-1", options.rows(),
                    CpuTime.ofReplica(replica.pid(), db));
            db.reset();
            progress("db-scheduler: " + options.rows() + " no-op one-time tasks (pair " + pair + " of " + pairs()
                    + ")");
            DbSchedulerPeer.Drained other = peer.drain(options.rows());
            pairs.add(new PairedDrain(pool.perSecond(), other.perSecond(), pool.cpu(), other.cpu()));
        }
        results.put(Metric.DRAIN_ONE_REPLICA, median(pairs, PairedDrain::pool));
        results.put(Metric.PEER, median(pairs, PairedDrain::peer));
        results.put(Metric.POOL_TO_PEER, median(pairs, PairedDrain::ratio));
        putCpu(pairs, PairedDrain::poolCpu, options.rows(), Metric.DRAIN_JVM_CPU, Metric.DRAIN_POSTGRES_CPU);
        putCpu(pairs, PairedDrain::peerCpu, options.rows(), Metric.PEER_JVM_CPU, Metric.PEER_POSTGRES_CPU);
        List<String> each = new ArrayList<>();
        for (PairedDrain pair : pairs) {
            each.add(ReportTable.format(pair.pool()) + " / " + ReportTable.format(pair.peer()) + " = "
                    + ReportTable.format(pair.ratio()));
        }
        results.note("pool_and_db_scheduler_pairs", "one replica's drain / db-scheduler's, conflicts or tasks per"
                + " second, in the order measured (each figure above is the median): " + String.join("; ", each));
        results.note("db_scheduler_lead", "db-scheduler picked up to " + options.peerLead() + " task(s) per thread"
                + " (lock-and-fetch upper limit " + options.peerLead() + ".0); the pool holds up to "
                + (1 + PoolSettings.DEFAULT_LEASES_AHEAD_PER_WORKER) + " leases per worker while its merges cost"
                + " nothing and take less than their store (ADR 0077)");
    }

    /** Back-to-back pairs of the pool's and the peer's drains: one for a smoke run, three otherwise. */
    private int pairs() {
        return options.quick() ? 1 : PAIRS;
    }

    /**
     * A drain of its own for the JFR recording and the statement costs, kept out of the pairs: recording slows
     * the replica, and tracking statements slows the database.
     */
    private void profiledDrain(Replica replica) throws Exception {
        CpuTime cpu = CpuTime.ofReplica(replica.pid(), db);
        StatementCosts statements = options.statements() ? StatementCosts.on(db) : null;
        if (options.jfr()) {
            Path file = options.out().resolve("drain-1.jfr");
            try (JfrRecording recording = JfrRecording.start(replica.pid(), file)) {
                new DrainBenchmark(db, seeder).drain("drain-profiled", options.rows(), cpu, statements);
            }
            results.note("jfr", "the replica's JFR recording of a profiled drain before the pairs: "
                    + file.getFileName() + " beside this file");
        } else {
            new DrainBenchmark(db, seeder).drain("drain-profiled", options.rows(), cpu, statements);
        }
        if (statements != null) {
            Path file = options.out().resolve("statements-drain-1.txt");
            statements.write(file, options.rows());
            results.note("statements", "what each statement cost the database over a profiled drain before the"
                    + " pairs, per conflict: " + file.getFileName() + " beside this file");
        }
    }

    /** The pool's and the peer's drains of one pair. */
    private record PairedDrain(double pool, double peer, CpuTime.Spent poolCpu, CpuTime.Spent peerCpu) {
        double ratio() {
            return pool / peer;
        }
    }

    private static <T> double median(List<T> of, ToDoubleFunction<T> value) {
        double[] sorted = of.stream().mapToDouble(value).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /**
     * The median over the pairs of one side's CPU milliseconds per unit of work, JVM and PostgreSQL, or skipped
     * with the reason that side was not measured.
     */
    private void putCpu(List<PairedDrain> pairs, Function<PairedDrain, CpuTime.Spent> side, long units, Metric jvm,
                        Metric postgres) {
        List<Double> jvmMillis = pairs.stream().map(side).map(s -> s.jvmMillisPer(units)).toList();
        if (jvmMillis.stream().noneMatch(Objects::isNull)) {
            results.put(jvm, median(jvmMillis, Double::doubleValue));
        } else {
            results.skip(jvm, "not measured: the process's CPU time cannot be read here");
        }
        List<Double> postgresMillis = pairs.stream().map(side).map(s -> s.postgresMillisPer(units)).toList();
        if (postgresMillis.stream().noneMatch(Objects::isNull)) {
            results.put(postgres, median(postgresMillis, Double::doubleValue));
        } else {
            String why = CpuTime.postgresUnmeasuredReason(db);
            results.skip(postgres, why.isEmpty() ? "not measured" : why);
        }
    }

    private void drainThree() throws Exception {
        progress("starting replica-2 and replica-3");
        try (Replica second = startReplica("replica-2", Map.of());
             Replica third = startReplica("replica-3", Map.of())) {
            warmUp();
            progress("drain, 3 replicas: " + options.rows() + " conflicts");
            results.put(Metric.DRAIN_THREE_REPLICAS,
                    new DrainBenchmark(db, seeder).drain("drain-3", options.rows()));
        }
    }

    private void scalePool() throws Exception {
        db.reset();
        double first = 0;
        double last = 0;
        for (int history : options.scaleHistory()) {
            topUpHistory(history);
            progress("scale, pool: " + options.scaleRows() + " conflicts over " + history + " finished ones");
            double perSecond = new DrainBenchmark(db, seeder).drain("scale-pool-" + history, options.scaleRows());
            results.scalePool(history, perSecond);
            first = first == 0 ? perSecond : first;
            last = perSecond;
        }
        results.put(Metric.SCALE_POOL, last / first);
    }

    private void pickupLatency() throws Exception {
        db.reset();
        progress("pickup latency: " + options.latencySamples() + " single conflicts");
        Percentiles latency = new PickupLatency(db, fixture).measure(options.latencySamples());
        results.put(Metric.PICKUP_P50, latency.at(50));
        results.put(Metric.PICKUP_P99, latency.at(99));
    }

    private void recoveryLatency() throws Exception {
        db.reset();
        progress("recovery latency: " + options.recoverySamples() + " conflicts of a killed replica, leases "
                + "expiring while " + options.recoveryBacklog() + " pending conflicts drain");
        RecoveryLatency.Measured measured = new RecoveryLatency(db, seeder)
                .measure(options.recoveryBacklog(), options.recoverySamples());
        results.put(Metric.RECOVERY_P50, measured.millis().at(50));
        results.put(Metric.RECOVERY_P99, measured.millis().at(99));
        results.note("recovery_latency", measured.millis().count() + " leases expired under the backlog ("
                + measured.afterBacklog() + " after it had drained, not counted); timed to the stored merge of "
                + "the new attempt, on the database clock");
    }

    private void inbox(Replica replica) throws Exception {
        db.reset();
        int rows = options.inboxOrgs() * options.inboxConflictsPerOrg();
        progress("inbox: seeding " + rows + " conflicts over " + options.inboxOrgs() + " orgs");
        seeder.done("inbox", rows, options.inboxOrgs());
        db.settle();
        String token = seeder.token("org_admin", Seeder.orgId(0));
        progress("inbox: " + options.inboxRequests() + " GET /v1/conflicts");
        Percentiles latency = new InboxReads().measure(replica, token, options.inboxRequests());
        results.put(Metric.INBOX_P50, latency.at(50));
        results.put(Metric.INBOX_P99, latency.at(99));
    }

    /**
     * The same reads on two replicas of one build, one after the other: the token cache on (the default) and
     * off ({@code auth.tokenCacheTtl=0s}). Uses the inbox step's conflicts when there are some, else seeds its
     * own. Each replica runs API-only, so no worker competes for the database.
     */
    private void conflictReads() throws Exception {
        if (seeder.count("done") == 0) {
            int orgs = Math.min(options.inboxOrgs(), 20);
            int rows = orgs * options.inboxConflictsPerOrg();
            progress("conflict reads: seeding " + rows + " conflicts over " + orgs + " orgs");
            seeder.done("reads", rows, orgs);
            db.settle();
        }
        String token = seeder.token("org_admin", Seeder.orgId(0));
        java.util.List<java.util.UUID> ids = ConflictReads.ids(db, Seeder.orgId(0), 1_000);
        Map<String, String> cachedSettings = Map.of("synthesis.enabled", "false");
        Map<String, String> uncachedSettings = Map.of("synthesis.enabled", "false", "auth.tokenCacheTtl", "0s");
        progress("conflict reads: starting a replica with the token cache on and one with it off");
        try (Replica cached = startReplica("replica-reads-cached", cachedSettings);
             Replica uncached = startReplica("replica-reads-uncached", uncachedSettings)) {
            // Rounds taken in turn on the two replicas, so that whatever else loads the machine meanwhile
            // weighs on both figures alike.
            // Two rounds in a smoke run: each round waits out the statistics four times.
            int rounds = options.quick() ? 2 : 4;
            int perRound = Math.max(1, options.conflictReads() / rounds);
            ConflictReads reads = new ConflictReads();
            reads.warmUp(cached, token, ids, options.quick());
            reads.warmUp(uncached, token, ids, options.quick());
            double[] seconds = new double[2];
            long[] transactions = new long[2];
            for (int round = 1; round <= rounds; round++) {
                progress("conflict reads: round " + round + " of " + rounds + ", " + perRound
                        + " GET /v1/conflicts/{id} on each replica");
                Replica[] both = {cached, uncached};
                for (int i = 0; i < 2; i++) {
                    // The statistics arrive up to a second late: let them settle outside the timed part.
                    Replica.sleep(1_500);
                    long before = IdleCost.transactions(db);
                    seconds[i] += reads.seconds(both[i], token, ids, perRound);
                    Replica.sleep(1_500);
                    transactions[i] += IdleCost.transactions(db) - before;
                }
            }
            results.put(Metric.CONFLICT_READS, rounds * perRound / seconds[0]);
            results.put(Metric.CONFLICT_READS_UNCACHED, rounds * perRound / seconds[1]);
            results.put(Metric.CONFLICT_READ_TX, transactions[0] / (double) (rounds * perRound));
            results.put(Metric.CONFLICT_READ_UNCACHED_TX, transactions[1] / (double) (rounds * perRound));
        }
    }

    /** Runs on the inbox step's conflicts (the events reference them), seeding one event per conflict. */
    private void export(Replica replica) throws Exception {
        String token = seeder.token("platform", null);
        EventExportRate export = new EventExportRate();
        try {
            export.probe(replica, token);
        } catch (EventExportRate.Unavailable e) {
            results.skipRemaining(e.getMessage(), Metric.EXPORT_RATE, Metric.EXPORT_HEAP_MIN,
                    Metric.EXPORT_HEAP_MAX);
            return;
        }
        int rows = options.inboxOrgs() * options.inboxConflictsPerOrg();
        if (rows < options.exportEvents()) {
            seeder.done("export", options.exportEvents() - rows, Seeder.DEFAULT_ORGS);
        }
        progress("export: seeding " + options.exportEvents() + " events");
        int events = seeder.events(options.exportEvents());
        db.settle();
        HeapProbe heap = null;
        String heapProblem = null;
        try {
            heap = HeapProbe.attach(replica.pid());
        } catch (Exception | LinkageError e) {
            heapProblem = "cannot attach to the replica to read its heap: " + e;
        }
        progress("export: reading " + events + " events as NDJSON");
        EventExportRate.Exported exported;
        try {
            exported = export.readAll(replica, token, events);
        } finally {
            if (heap != null) {
                HeapProbe.Range range = heap.stop();
                heap.close();
                results.put(Metric.EXPORT_HEAP_MIN, range.minMib());
                results.put(Metric.EXPORT_HEAP_MAX, range.maxMib());
            } else {
                results.skipRemaining(heapProblem, Metric.EXPORT_HEAP_MIN, Metric.EXPORT_HEAP_MAX);
            }
        }
        if (exported.events() < events) {
            throw new IllegalStateException("the export returned " + exported.events() + " events of " + events);
        }
        results.put(Metric.EXPORT_RATE, exported.perSecond());
        results.note("export", exported.events() + " events in " + exported.pages() + " pages of up to "
                + EventExportRate.PAGE_LIMIT + ", replica heap " + REPLICA_HEAP);
    }

    private void slowSynthesizer() throws Exception {
        double target = options.workers() / 0.2;
        results.put(Metric.SLOW_TARGET, target);
        db.reset();
        progress("slow synthesizer: starting a replica with synthesis.faults.latency=200ms");
        Replica slow;
        try {
            slow = startReplica("replica-slow", Map.of("synthesis.faults.latency", "200ms"));
        } catch (Replica.RefusedToStart e) {
            results.skipRemaining("the replica refused -Ddw.synthesis.faults.latency=200ms (not in this build)",
                    Metric.SLOW_THROUGHPUT, Metric.SLOW_PEAK_CONNECTIONS, Metric.SLOW_MEAN_CONNECTIONS);
            return;
        }
        try (slow) {
            Optional<String> poolMissing = Capabilities.poolMissing(slow);
            if (poolMissing.isPresent()) {
                results.skipRemaining(poolMissing.get(), Metric.SLOW_THROUGHPUT, Metric.SLOW_PEAK_CONNECTIONS,
                        Metric.SLOW_MEAN_CONNECTIONS);
                return;
            }
            seeder.pendingOnHold("slow", options.slowRows());
            db.settle();
            progress("slow synthesizer: " + options.slowRows() + " conflicts at 200 ms each");
            ConnectionSampler sampler = new ConnectionSampler(db, slow.applicationName());
            ConnectionSampler.Usage usage;
            double seconds;
            try (sampler) {
                DrainRelease.releaseAll(db);
                long start = System.nanoTime();
                seconds = DrainWatch.awaitDrained(db, start, java.time.Duration.ofSeconds(30));
            } finally {
                usage = sampler.stop();
            }
            results.put(Metric.SLOW_THROUGHPUT, options.slowRows() / seconds);
            results.put(Metric.SLOW_PEAK_CONNECTIONS, usage.peak());
            results.put(Metric.SLOW_MEAN_CONNECTIONS, usage.mean());
            results.note("slow_synthesizer", usage.samples() + " samples of pg_stat_activity, target "
                    + ReportTable.format(target) + " conflicts/s");
        }
    }

    /** The LLM synthesizer against a stand-in provider with a rate limit and a latency: {@link ProviderBound}. */
    private void providerBound() throws Exception {
        new ProviderBound(options, db, seeder, results, (name, overrides, environment) -> {
            Map<String, String> all = new java.util.LinkedHashMap<>();
            all.put("synthesis.workers", Integer.toString(options.workers()));
            all.putAll(overrides);
            return BenchReplicas.start(name, options, db, all, environment, REPLICA_HEAP);
        }).run();
    }

    /** The LLM synthesizer against a stand-in whose token limits bind: {@link TokenBound}. */
    private void providerTokens() throws Exception {
        new TokenBound(options, db, seeder, results, (name, overrides, environment) ->
                BenchReplicas.start(name, options, db, overrides, environment, REPLICA_HEAP)).run();
    }

    /** A database of one big org and a fleet of small ones, and one replica's reads on it: {@link BigTenants}. */
    private void bigTenants() throws Exception {
        new BigTenants(options, db, seeder, fixture, results, this::startReplica).run();
    }

    /** One org's conflict behind another's backlog, and three orgs' shares of the calls: {@link FairShares}. */
    private void fairShares() throws Exception {
        new FairShares(db, seeder, fixture, results, (name, overrides, environment) ->
                BenchReplicas.start(name, options, db, overrides, environment, REPLICA_HEAP)).run();
    }

    /** One org's backlog through either lane, another org's conflicts meanwhile: {@link BatchLaneDrains}. */
    private void batchLane() throws Exception {
        new BatchLaneDrains(options, db, seeder, fixture, results, (name, overrides, environment) ->
                BenchReplicas.start(name, options, db, overrides, environment, REPLICA_HEAP)).run();
    }

    /** One replica of 4, 32 and 128 workers against a stand-in that answers after 2 s: {@link WorkerScaling}. */
    private void workerScaling() throws Exception {
        new WorkerScaling(options, db, seeder, results, (name, overrides, environment) ->
                BenchReplicas.start(name, options, db, overrides, environment, REPLICA_HEAP)).run();
    }

    /**
     * An untimed drain first, so that the timed one meets replicas whose code the JIT has already compiled, as
     * in a service that has been running for a while; then empty tables again.
     */
    private void warmUp() throws Exception {
        db.reset();
        progress("warming the replicas up on " + options.warmUpRows() + " conflicts");
        new DrainBenchmark(db, seeder).drain("warm-up", options.warmUpRows());
        db.reset();
    }

    /**
     * Untimed drains, one after another, until the replica's CPU per conflict stops falling (by less than a
     * tenth from one to the next), at most {@value #MAX_WARM_UP_ROUNDS}: one drain of the warm-up size left the
     * JIT compiling for the first seconds of the timed drain, and its compiler threads' time was counted as the
     * replica's CPU per conflict and took a core from the drain. The CPU of each round goes in the run's notes.
     */
    private void warmUpUntilSettled(Replica replica) throws Exception {
        db.reset();
        List<String> perRound = new ArrayList<>();
        Double last = null;
        // A smoke run stops after two rounds, settled or not: its figures are only a sign of life.
        int maxRounds = options.quick() ? 2 : MAX_WARM_UP_ROUNDS;
        for (int round = 1; round <= maxRounds; round++) {
            progress("warming the replica up, round " + round + ": " + options.warmUpRows() + " conflicts");
            DrainBenchmark.Drained drained = new DrainBenchmark(db, seeder).drain("warm-up-" + round,
                    options.warmUpRows(), CpuTime.ofReplica(replica.pid(), db));
            db.reset();
            Double cpu = drained.cpu().jvmMillisPer(options.warmUpRows());
            if (cpu == null) {
                break; // Not measurable here: one round, as for the other drains.
            }
            perRound.add(ReportTable.format(cpu));
            if (last != null && cpu > last * (1 - SETTLED_WITHIN)) {
                break;
            }
            last = cpu;
        }
        results.note("warm_up", perRound.size() + " untimed drains of " + options.warmUpRows()
                + " conflicts before the one-replica drain; replica JVM CPU ms per conflict in each: " + perRound);
    }

    private static final int MAX_WARM_UP_ROUNDS = 6;
    private static final double SETTLED_WITHIN = 0.10;

    /** Adds finished conflicts until exactly {@code history} are in the table. */
    private void topUpHistory(int history) throws Exception {
        long done = seeder.count("done");
        if (done < history) {
            progress("adding " + (history - done) + " finished conflicts");
            seeder.done("history-" + history, (int) (history - done), Seeder.DEFAULT_ORGS);
        }
    }

    private Replica startReplica(String name, Map<String, String> extra) throws Replica.RefusedToStart {
        Map<String, String> overrides = new java.util.LinkedHashMap<>();
        overrides.put("synthesis.workers", Integer.toString(options.workers()));
        overrides.putAll(extra);
        return BenchReplicas.start(name, options, db, overrides, REPLICA_HEAP);
    }

    private void step(String name, Step step, Metric... metrics) {
        try {
            step.run();
        } catch (Exception e) {
            System.err.println("[bench] step '" + name + "' failed:");
            e.printStackTrace();
            results.error(name, e);
            results.skipRemaining("failed: " + e, metrics);
        }
    }

    private static void requireAll(long got, long expected, String what) {
        if (got != expected) {
            throw new IllegalStateException(what + " finalized " + got + " conflicts of " + expected);
        }
    }

    private static void progress(String message) {
        System.err.println("[bench] " + message);
    }
}
