package io.mergesynthesis.bench;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import io.mergesynthesis.harness.Replica;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Whether workers that wait on a slow provider wait cheaply: one replica with 4, 32 and 128 workers against a
 * stand-in that answers after {@link #LATENCY} with no rate limit that could bind, so the bound is workers / T.
 * For each worker count: conflicts merged per second in a steady window, the database transactions the replica
 * caused per merged conflict ({@code pg_stat_database}, read from the maintenance database so that reading
 * does not count), and the replica's used heap over the window.
 *
 * <p>The provider's {@code maxConcurrency} is raised to the worker count, as an operator running that many
 * workers would set it: left at its default of 16, every worker beyond the 16th would only wait for a slot.
 */
final class WorkerScaling {

    static final Duration LATENCY = Duration.ofSeconds(2);
    static final List<Integer> WORKER_COUNTS = List.of(4, 32, 128);
    /** Far above what 128 workers at 2 s can ask for (64/s): the limit never binds here. */
    private static final int RATE_LIMIT = 10_000;

    private final Options options;
    private final BenchDatabase db;
    private final Seeder seeder;
    private final Results results;
    private final ProviderBound.Starter starter;

    WorkerScaling(Options options, BenchDatabase db, Seeder seeder, Results results, ProviderBound.Starter starter) {
        this.options = options;
        this.db = db;
        this.seeder = seeder;
        this.results = results;
        this.starter = starter;
    }

    /** The most one replica of {@code workers} workers can merge per second: one call each, T apart. */
    static double bound(int workers) {
        return workers / (LATENCY.toNanos() / 1e9);
    }

    void run() throws Exception {
        results.note("worker_scaling", "one replica, SYNTHESIZER=llm against the stand-in in the benchmark's JVM "
                + "(T = " + LATENCY.toSeconds() + " s, no binding rate limit), llm.providers.local.maxConcurrency "
                + "= workers; per worker count a backlog of " + backlog(WORKER_COUNTS.get(WORKER_COUNTS.size() - 1))
                + " or more, " + options.providerWarmUpSeconds() + " s of warm-up, then a "
                + options.providerWindowSeconds() + " s window");
        Behaviour behaviour = new Behaviour().confidence(0.9).expectedKey(ProviderBound.KEY)
                .latency(LATENCY).rateLimitPerSecond(RATE_LIMIT);
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            for (int workers : WORKER_COUNTS) {
                if (options.quick() && workers != WORKER_COUNTS.get(WORKER_COUNTS.size() - 1)) {
                    // A replica per worker count costs a start-up each; the smoke run keeps the largest alone.
                    results.skipRemaining("--quick measures only " + WORKER_COUNTS.get(WORKER_COUNTS.size() - 1)
                            + " workers", Metric.workers(workers));
                    continue;
                }
                try {
                    measure(standIn, workers);
                } catch (Exception e) {
                    System.err.println("[bench] step 'worker scaling, " + workers + " workers' failed:");
                    e.printStackTrace();
                    results.error("worker scaling, " + workers + " workers", e);
                    results.skipRemaining("failed: " + e, Metric.workers(workers));
                }
            }
        }
    }

    /** Enough conflicts that the window cannot run out of work, whatever the worker count. */
    private int backlog(int workers) {
        double needed = bound(workers) * (options.providerWarmUpSeconds() + options.providerWindowSeconds());
        return Math.max(options.providerBacklog(), (int) Math.ceil(needed * 1.5));
    }

    private void measure(StandInProvider standIn, int workers) throws Exception {
        db.reset();
        int backlog = backlog(workers);
        seeder.pendingOnHold("workers-" + workers, backlog);
        db.settle();
        Map<String, String> overrides = Map.of("synthesis.workers", Integer.toString(workers),
                "llm.providers.local.maxConcurrency", Integer.toString(workers));
        progress(workers + " workers: starting a replica; " + backlog + " conflicts, bound "
                + ReportTable.format(bound(workers)) + " conflicts/s");
        try (Replica replica = starter.start("replica-workers-" + workers, overrides,
                ProviderBound.environment(standIn))) {
            DrainRelease.releaseAll(db);
            Replica.sleep(options.providerWarmUpSeconds() * 1000L);

            long doneBefore = seeder.count("done");
            long transactionsBefore = IdleCost.transactions(db);
            Stats.Snapshot callsBefore = standIn.stats();
            long start = System.nanoTime();
            HeapProbe.Range heap;
            try (HeapProbe probe = HeapProbe.attach(replica.pid())) {
                Replica.sleep(options.providerWindowSeconds() * 1000L);
                heap = probe.stop();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long merged = seeder.count("done") - doneBefore;
            long transactions = IdleCost.transactions(db) - transactionsBefore;
            long answered = standIn.stats().status(200) - callsBefore.status(200);
            if (seeder.count("pending") == 0) {
                throw new IllegalStateException("the backlog ran out during the window; the rate understates "
                        + "what " + workers + " workers can do");
            }
            double rate = merged / seconds;
            results.put(Metric.worker(workers, Metric.WorkerFigure.MERGED), rate);
            results.put(Metric.worker(workers, Metric.WorkerFigure.TO_BOUND), rate / bound(workers));
            if (merged > 0) {
                results.put(Metric.worker(workers, Metric.WorkerFigure.TRANSACTIONS), transactions / (double) merged);
            } else {
                results.skip(Metric.worker(workers, Metric.WorkerFigure.TRANSACTIONS), "nothing merged in the window");
            }
            results.put(Metric.worker(workers, Metric.WorkerFigure.HEAP_MIN), heap.minMib());
            results.put(Metric.worker(workers, Metric.WorkerFigure.HEAP_MAX), heap.maxMib());
            results.note("worker_scaling_" + workers, merged + " merged in " + ReportTable.format(seconds)
                    + " s; " + answered + " calls answered 200 by the stand-in; " + transactions
                    + " transactions on the benchmark database; heap " + ReportTable.format(heap.minMib()) + " to "
                    + ReportTable.format(heap.maxMib()) + " MiB");
            progress(workers + " workers: " + ReportTable.format(rate) + " merged/s, "
                    + ReportTable.format(merged == 0 ? 0 : transactions / (double) merged)
                    + " transactions per merge, heap " + ReportTable.format(heap.minMib()) + "-"
                    + ReportTable.format(heap.maxMib()) + " MiB");
        }
    }

    private static void progress(String message) {
        System.err.println("[bench] worker scaling: " + message);
    }
}
