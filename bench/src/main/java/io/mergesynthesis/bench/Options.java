package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Product;
import java.nio.file.Path;
import java.util.List;

/**
 * What one benchmark run measures and how big it is. {@code --quick} shrinks every size so that the whole run
 * fits in a CI smoke test; the figures it prints are then only a sign of life, not numbers to quote.
 */
record Options(
        int rows,
        boolean quick,
        boolean headline,
        boolean tokenCache,
        boolean providerBound,
        boolean providerTokens,
        TokenRow tokenRow,
        boolean fairShares,
        boolean workerScaling,
        boolean latency,
        boolean synchronousCommit,
        boolean jfr,
        boolean statements,
        int peerLead,
        Path out,
        Path productRoot,
        String databaseUrl,
        String databaseUser,
        String databasePassword,
        boolean wipe,
        int workers,
        int warmUpRows,
        int latencySamples,
        List<Integer> scaleHistory,
        int scaleRows,
        int idleSeconds,
        int slowRows,
        int inboxOrgs,
        int inboxConflictsPerOrg,
        int inboxRequests,
        int exportEvents,
        int conflictReads,
        int providerBacklog,
        int providerWarmUpSeconds,
        int providerWindowSeconds,
        int recoveryBacklog,
        int recoverySamples,
        boolean scaleTenants,
        int tenantRows,
        int tenantSamples,
        int tenantExportEvents,
        boolean tenantReuse,
        boolean batchLane,
        int batchRows) {

    static final String USAGE = """
            usage: java -jar bench/target/merge-synthesis-bench.jar [--rows N] [--quick] [--headline]
                                                                  [--token-cache] [--provider-bound]
                                                                  [--provider-tokens] [--token-row ROW]
                                                                  [--fair-shares]
                                                                  [--provider-warm-up S] [--provider-window S]
                                                                  [--worker-scaling] [--latency]
                                                                  [--synchronous-commit-off] [--jfr]
                                                                  [--statements] [--peer-lead N]
                                                                  [--scale-tenants] [--scale-rows N] [--scale-reuse]
                                                                  [--batch-lane] [--batch-rows N]
                                                                  [--out DIR] [--product-root DIR] [--wipe]
                   java -jar bench/target/merge-synthesis-bench.jar --merge-cost [--merges N] [--config FILE]
              --rows N            conflicts per drain (default 100000; 500 with --quick)
              --quick             tiny sizes for a smoke run (about two minutes)
              --headline          only the two headline ratios: the ceiling, then one replica's drain and
                                  the peer's in three back-to-back pairs (a few minutes; for comparing
                                  two builds)
              --token-cache       only GET /v1/conflicts/{id} with the token cache on and off, side by
                                  side (about a minute)
              --provider-bound    only the LLM synthesizer against a rate-limited stand-in provider: four
                                  scenarios (one whose limit is not stated), one replica then three
                                  (about 12 minutes; 2 with --quick)
              --provider-tokens   only the LLM synthesizer against a stand-in whose token limits bind:
                                  input or output tokens at Anthropic's first and fourth tier, the bucket
                                  at a tenth and rounded, one replica then three, measured from the first
                                  call (about 15 minutes; 5 with --quick)
              --token-row ROW     only one of those rows, one replica and then three, or ROW:N only with N
                                  replicas: ROW is input_tier1, output_tier1, input_tier4 or output_tier4
                                  (a few minutes; to look at one row closely)
              --fair-shares       only the shares of the provider's calls between orgs: one replica of 4
                                  workers against a stand-in answering after 1 s; one org's single
                                  conflict alone and behind another's 300 and 3,000, then the calls of
                                  three orgs with backlogs of 100, 1,000 and 10,000 over a minute, weights
                                  1/1/1 and 1/1/2 (about 5 minutes)
              --provider-warm-up S, --provider-window S
                                  the warm-up and the measured window of each request-bound scenario, in
                                  seconds (default 15 and 60; 2 and 6 with --quick)
              --merge-cost        only what a merge costs: input and output tokens per merge and USD per
                                  1,000 merges of each model config.yml prices, the request before and
                                  after ADR 0039, cache off and on (about 20 s; no database)
              --worker-scaling    only one replica of 4, 32 and 128 workers against a stand-in that
                                  answers after 2 s (about 5 minutes; 1 with --quick)
              --latency           only the two latency steps: pickup of a new conflict by an idle
                                  pool, and recovery of conflicts whose holder died, under a
                                  full backlog (a few minutes)
              --synchronous-commit-off
                                  run the embedded database with synchronous_commit off (commits
                                  do not wait for the disk); by default it is on, a durable
                                  database, as in production
              --jfr               record a JFR profile of the replica during a one-replica drain of
                                  its own, before the timed pairs (drain-1.jfr under --out)
              --statements        load pg_stat_statements into the embedded database and write what each
                                  statement cost it over a one-replica drain of its own, before the
                                  timed pairs (statements-drain-1.txt under --out)
              --peer-lead N       db-scheduler picks up to N tasks per thread ahead of its threads'
                                  work (its lock-and-fetch upper limit; default 1, one per thread; 4 is
                                  the most the pool holds per worker with leases ahead, ADR 0077)
              --batch-lane        only the batch lane against the interactive lane, on one replica of 16
                                  workers: org A's backlog drained through each (the stand-in answering
                                  a call after 200 ms, ending a batch 15 s after its create; 3 s with
                                  --quick), cost, calls and tokens per merge from the usage ledger, and
                                  org B's conflicts reported every 500 ms meanwhile in the interactive
                                  lane, against org B alone (about 7 minutes at 10,000; 1.5 with --quick)
              --batch-rows N      org A's backlog in the batch-lane step (default 10000; 200 with --quick)
              --scale-tenants     only the big tenants: builds a database of finished conflicts, half of
                                  them in one org and half in orgs of 500, with COPY, and times every
                                  inbox read, the web pages, usage, the operator's page, the export and
                                  a new conflict's merge on one replica (about 15 minutes at 2,000,000;
                                  under a minute with --quick)
              --scale-rows N      conflicts in that database (default 2000000; 3000 with --quick)
              --scale-reuse       time the reads on the database an earlier --scale-tenants run left on
                                  the DATABASE_URL server, of the same size, without loading it again
                                  (to compare two builds on one database)
              --out DIR           where results.json, scale.png and the replica logs go (default bench-results)
              --product-root DIR  the checkout holding service/target/merge-synthesis.jar and config.yml
                                  (default: the current directory or the nearest parent that has them)
              --wipe              allow emptying a DATABASE_URL database that already holds conflicts
            Environment: DATABASE_URL (a JDBC URL; unset starts an embedded PostgreSQL in a temporary
            directory), DATABASE_USER, DATABASE_PASSWORD. A DATABASE_URL database is emptied between
            measurements: give the benchmark a database of its own.""";

    /**
     * The one token row a {@code --token-row} asks for, as given, and the replicas it names (1 or 3, as they are
     * measured; 0 for both).
     */
    record TokenRow(String asGiven, String key, int replicas) {

        static TokenRow parse(String row) {
            String[] parts = row.split(":", 2);
            if (java.util.Arrays.stream(TokenScenario.values()).noneMatch(s -> s.key.equals(parts[0]))) {
                throw new UsageException("--token-row " + row + ": no such row; the rows are input_tier1, "
                        + "output_tier1, input_tier4 and output_tier4");
            }
            if (parts.length == 2 && !parts[1].equals("1") && !parts[1].equals("3")) {
                throw new UsageException("--token-row " + row + ": the rows are measured with 1 or 3 replicas, not "
                        + parts[1]);
            }
            return new TokenRow(row, parts[0], parts.length == 2 ? Integer.parseInt(parts[1]) : 0);
        }

        boolean measures(TokenScenario scenario) {
            return scenario.key.equals(key);
        }

        boolean measures(int replicaCount) {
            return replicas == 0 || replicas == replicaCount;
        }
    }

    static Options parse(String[] args) {
        Integer rows = null;
        boolean quick = false;
        boolean headline = false;
        boolean tokenCache = false;
        boolean providerBound = false;
        boolean providerTokens = false;
        TokenRow tokenRow = null;
        boolean fairShares = false;
        Integer providerWarmUp = null;
        Integer providerWindow = null;
        boolean workerScaling = false;
        boolean latency = false;
        boolean synchronousCommit = true;
        boolean jfr = false;
        boolean statements = false;
        int peerLead = 1;
        boolean wipe = false;
        boolean scaleTenants = false;
        boolean batchLane = false;
        Integer batchRows = null;
        Integer tenantRows = null;
        boolean tenantReuse = false;
        Path out = Path.of("bench-results");
        Path root = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(value(args, ++i, "--rows"));
                case "--quick" -> quick = true;
                case "--headline" -> headline = true;
                case "--token-cache" -> tokenCache = true;
                case "--provider-bound" -> providerBound = true;
                case "--provider-tokens" -> providerTokens = true;
                case "--token-row" -> {
                    tokenRow = TokenRow.parse(value(args, ++i, "--token-row"));
                    providerTokens = true;
                }
                case "--fair-shares" -> fairShares = true;
                case "--provider-warm-up" -> providerWarmUp = seconds(value(args, ++i, "--provider-warm-up"));
                case "--provider-window" -> providerWindow = seconds(value(args, ++i, "--provider-window"));
                case "--worker-scaling" -> workerScaling = true;
                case "--latency" -> latency = true;
                case "--synchronous-commit-off" -> synchronousCommit = false;
                case "--jfr" -> jfr = true;
                case "--statements" -> statements = true;
                case "--peer-lead" -> peerLead = Integer.parseInt(value(args, ++i, "--peer-lead"));
                case "--wipe" -> wipe = true;
                case "--scale-tenants" -> scaleTenants = true;
                case "--batch-lane" -> batchLane = true;
                case "--batch-rows" -> batchRows = Integer.parseInt(value(args, ++i, "--batch-rows"));
                case "--scale-rows" -> tenantRows = Integer.parseInt(value(args, ++i, "--scale-rows"));
                case "--scale-reuse" -> {
                    tenantReuse = true;
                    scaleTenants = true;
                }
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--product-root" -> root = Path.of(value(args, ++i, "--product-root"));
                case "--help", "-h" -> throw new UsageException(USAGE);
                default -> throw new UsageException("unknown argument " + args[i] + "\n" + USAGE);
            }
        }
        if (peerLead < 1 || peerLead > 8) {
            throw new UsageException("--peer-lead " + peerLead + ": db-scheduler picks 1 to 8 tasks per thread");
        }
        int n = rows != null ? rows : quick ? 500 : 100_000;
        if (n < 1) {
            throw new UsageException("--rows must be at least 1");
        }
        int tenants = tenantRows != null ? tenantRows : quick ? 3_000 : 2_000_000;
        if (tenants < 200) {
            throw new UsageException("--scale-rows must be at least 200");
        }
        int batchBacklog = batchRows != null ? batchRows : quick ? 200 : 10_000;
        if (batchBacklog < 1) {
            throw new UsageException("--batch-rows must be at least 1");
        }
        String url = blankToNull(System.getenv("DATABASE_URL"));
        if (tenantReuse && url == null) {
            throw new UsageException("--scale-reuse needs DATABASE_URL: the embedded database goes away with its run");
        }
        String user = url == null ? "postgres" : orDefault(System.getenv("DATABASE_USER"), "postgres");
        String password = url == null ? "" : orDefault(System.getenv("DATABASE_PASSWORD"), "");
        return new Options(
                n,
                quick,
                headline,
                tokenCache,
                providerBound,
                providerTokens,
                tokenRow,
                fairShares,
                workerScaling,
                latency,
                synchronousCommit,
                jfr,
                statements,
                peerLead,
                out.toAbsolutePath(),
                Product.findRoot(root),
                url,
                user,
                password,
                wipe,
                4,
                quick ? 200 : 5_000,
                quick ? 100 : 1_000,
                quick ? List.of(1_000, 10_000) : List.of(10_000, 100_000, 1_000_000),
                quick ? n : Math.max(1_000, n / 5),
                quick ? 3 : 20,
                quick ? 40 : 400,
                quick ? 20 : 1_000,
                quick ? 250 : 1_000,
                quick ? 100 : 1_000,
                quick ? 5_000 : 1_000_000,
                quick ? 500 : 20_000,
                quick ? 300 : 10_000,
                providerWarmUp != null ? providerWarmUp : quick ? 2 : 15,
                providerWindow != null ? providerWindow : quick ? 6 : 60,
                quick ? 3_000 : 20_000,
                quick ? 20 : 100,
                scaleTenants,
                tenants,
                quick ? 20 : 200,
                quick ? 100_000 : 500_000,
                tenantReuse,
                batchLane,
                batchBacklog);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new UsageException(flag + " needs a value\n" + USAGE);
        }
        return args[i];
    }

    private static int seconds(String value) {
        try {
            int seconds = Integer.parseInt(value);
            if (seconds >= 1) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new UsageException("a number of seconds, at least 1, is expected, not '" + value + "'\n" + USAGE);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static String orDefault(String s, String fallback) {
        return s == null || s.isBlank() ? fallback : s;
    }

    /** A command line the benchmark cannot run with; the message says why. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
