package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code java -jar bench/target/merge-synthesis-bench.jar [--rows N] [--quick] [--provider-bound] [--scale-tenants]
 * [--out DIR]}:
 * runs every measurement, prints the table, and writes {@code results.json} and {@code scale.png} under {@code --out}.
 * Exits 0 when every step either measured or was skipped for a part the product does not have yet, 1 when a
 * step failed, 2 on a bad command line.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the benchmark and returns the process's exit status; for the smoke test as well as {@link #main}. */
    public static int run(String[] args, PrintStream out) {
        System.setProperty("java.awt.headless", "true");
        if (args.length > 0 && args[0].equals("--merge-cost")) {
            // No database and no replica: requests are built and posted to a stand-in that counts them.
            try {
                MergeCost.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            } catch (Exception e) {
                e.printStackTrace();
                return 1;
            }
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.UsageException e) {
            System.err.println(e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
        // The harness kills replicas left running when the JVM ends; the run kills them itself when it ends.
        Results results = new Results();
        try {
            results.context.put("machine", Machine.describe());
            results.context.put("settings", settings(options));
            results.context.put("product", product(options));
            try (BenchDatabase db = BenchDatabase.open(options)) {
                new BenchPlan(options, db, results).runAll();
            }
        } catch (Exception e) {
            e.printStackTrace();
            results.error("setup", e);
        } finally {
            Replica.killAll();
        }
        try {
            Path json = ResultsJson.write(results, options.out());
            Path chart = ScaleChart.write(results, options.out());
            ReportTable.print(results, out);
            out.println("wrote " + json + " and " + chart);
        } catch (Exception e) {
            e.printStackTrace();
            return 1;
        }
        return results.errors().isEmpty() ? 0 : 1;
    }

    /**
     * Which service the replicas run: the jar under the product root (the checkout the benchmark was started in,
     * or {@code --product-root}), not the one this benchmark was built beside. A pair of runs meant to compare two
     * builds compares one unless each starts in its own checkout, which this line lets the reader check.
     */
    private static Map<String, Object> product(Options o) {
        Path jar = Product.jar(o.productRoot());
        Map<String, Object> p = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(jar)) {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
            p.put("jar_sha256", HexFormat.of().formatHex(digest).substring(0, 16));
            p.put("built", Files.getLastModifiedTime(jar).toInstant().toString());
        } catch (IOException | NoSuchAlgorithmException e) {
            p.put("jar", "unreadable: " + e.getMessage());
        }
        return p;
    }

    private static Map<String, Object> settings(Options o) {
        Map<String, Object> s = new LinkedHashMap<>();
        String only = o.scaleTenants() ? "big tenants" : o.latency() ? "latency" : o.headline() ? "headline"
                : o.tokenCache() ? "token cache"
                : o.providerBound() ? "provider-bound" : o.fairShares() ? "fair shares"
                : o.workerScaling() ? "worker-scaling" : "full";
        s.put("mode", o.quick() ? "quick (smoke sizes: not figures to quote), " + only : only);
        s.put("rows_per_drain", o.rows());
        s.put("workers_per_replica", o.workers());
        s.put("warm_up_rows_before_each_timed_drain", o.warmUpRows());
        s.put("pool_statements", "the product's (ConflictLeases), claim batch " + CeilingLoop.CLAIM_BATCH);
        s.put("latency_samples", o.latencySamples());
        s.put("recovery", o.recoverySamples() + " expiring leases behind a backlog of " + o.recoveryBacklog());
        s.put("synchronous_commit", o.databaseUrl() != null ? "as the DATABASE_URL server has it"
                : o.synchronousCommit() ? "on (durable)" : "off (--synchronous-commit-off)");
        s.put("scale_history_rows", o.scaleHistory());
        s.put("scale_rows_per_drain", o.scaleRows());
        s.put("idle_window_s", o.idleSeconds());
        s.put("slow_rows", o.slowRows());
        s.put("inbox", o.inboxOrgs() + " orgs x " + o.inboxConflictsPerOrg() + " conflicts, "
                + o.inboxRequests() + " requests");
        s.put("export_events", o.exportEvents());
        s.put("conflict_reads", o.conflictReads() + " requests from " + ConflictReads.CLIENTS + " clients");
        s.put("provider_bound", "backlog " + o.providerBacklog() + ", warm-up " + o.providerWarmUpSeconds()
                + " s, window " + o.providerWindowSeconds() + " s, " + ProviderScenario.WORKERS
                + " workers per replica");
        s.put("batch_lane", "org A's backlog " + o.batchRows() + " through each lane, "
                + BatchLaneDrains.Sizes.of(o).describe());
        s.put("big_tenants", TenantShape.of(o.tenantRows(), o.quick()).describe() + ", up to " + o.tenantSamples()
                + " timed reads per figure, the export read to " + o.tenantExportEvents() + " events");
        return s;
    }
}
