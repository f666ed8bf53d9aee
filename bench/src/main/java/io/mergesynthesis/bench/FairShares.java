package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * How the provider's calls are shared between orgs (ADR 0069). One replica of {@link #WORKERS} workers runs the
 * LLM synthesizer against the stand-in provider, which answers after {@link #LATENCY} with no rate limit, so the
 * workers are what is shared out. Two kinds of rows:
 *
 * <ul>
 *   <li>the wait of org B's single conflict, reported through the API, from its report to its merge: with
 *       nothing else waiting, and then after org A's backlog of 300, then 3,000, has been claimable for
 *       {@link #LEAD}. A fair claim takes B's conflict at the next free worker, whatever A's backlog;</li>
 *   <li>the calls of three orgs with backlogs of 100, 1,000 and 10,000 (the largest reported first, so a claim by
 *       age alone would serve it only) over a {@link #WINDOW} once all three wait, each org's share over the share
 *       its weight makes its due ({@link FairMix}).</li>
 * </ul>
 *
 * Every row starts from emptied tables; a row that fails is recorded as such and the next one runs.
 */
final class FairShares {

    static final Duration LATENCY = Duration.ofSeconds(1);
    static final int WORKERS = 4;
    /** How long org A's backlog has been claimable, its conflicts in every worker, when org B reports. */
    static final Duration LEAD = Duration.ofSeconds(5);
    /** Between every org's backlog becoming claimable and the share window: the first claims settle the tags. */
    static final Duration WARM_UP = Duration.ofSeconds(5);
    static final Duration WINDOW = Duration.ofSeconds(60);

    private static final int WARM_UP_ORG = 9_000;
    private static final int ORG_A = 9_001;
    private static final int ORG_B = 9_002;
    /** Conflicts the replica merges before the first row, so that no row pays for its first calls. */
    private static final int WARM_UP_CONFLICTS = 8;
    private static final Duration WAIT_LIMIT = Duration.ofSeconds(60);

    private final BenchDatabase db;
    private final Seeder seeder;
    private final Fixture fixture;
    private final Results results;
    private final ProviderBound.Starter starter;

    FairShares(BenchDatabase db, Seeder seeder, Fixture fixture, Results results, ProviderBound.Starter starter) {
        this.db = db;
        this.seeder = seeder;
        this.fixture = fixture;
        this.results = results;
        this.starter = starter;
    }

    /** A row of the step; anything it throws is recorded as that row's failure. */
    private interface Row {
        void run() throws Exception;
    }

    void run() throws Exception {
        results.note("fair_shares", "one replica of " + WORKERS + " workers, SYNTHESIZER=llm against the stand-in "
                + "provider in the benchmark's JVM answering after " + LATENCY.toMillis() + " ms, no rate limit; "
                + "org B's conflict reported through POST /v1/conflicts, its wait from received_at to "
                + "synthesized_at; org A's backlog claimable " + LEAD.toSeconds() + " s before it; the shares from "
                + "the usage ledger's calls per org in a " + WINDOW.toSeconds() + " s window, " + WARM_UP.toSeconds()
                + " s after the backlogs became claimable (largest oldest), weights set with PUT "
                + "/v1/orgs/{org_id}/synthesis");
        Behaviour behaviour = new Behaviour().confidence(0.9).expectedKey(ProviderBound.KEY).latency(LATENCY);
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            db.reset();
            progress("starting replica-fair (" + WORKERS + " workers, SYNTHESIZER=llm against the stand-in on port "
                    + standIn.port() + ")");
            try (Replica replica = starter.start("replica-fair",
                    Map.of("synthesis.workers", Integer.toString(WORKERS)), ProviderBound.environment(standIn))) {
                Optional<String> poolMissing = Capabilities.poolMissing(replica);
                if (poolMissing.isPresent()) {
                    results.skipRemaining(poolMissing.get(), Metric.fairShares());
                    return;
                }
                warmUp();
                row("org B alone", () -> alone(replica), Metric.FAIR_ALONE);
                row("org B behind 300", () -> behind(replica, 300, Metric.FAIR_BEHIND_300),
                        Metric.FAIR_BEHIND_300);
                row("org B behind 3,000", () -> behind(replica, 3_000, Metric.FAIR_BEHIND_3000),
                        Metric.FAIR_BEHIND_3000);
                for (FairMix mix : FairMix.values()) {
                    row("shares, " + mix.describe(), () -> shares(replica, standIn, mix), mix.figures);
                }
            }
        }
    }

    private void warmUp() throws Exception {
        db.reset();
        progress("warming the replica up on " + WARM_UP_CONFLICTS + " conflicts");
        seeder.pendingOnHoldOf("fair-warm-up", WARM_UP_CONFLICTS, WARM_UP_ORG);
        DrainRelease.releaseAll(db);
        DrainWatch.awaitDrained(db, System.nanoTime(), WAIT_LIMIT);
    }

    /** Org B's one conflict with no other conflict waiting. */
    private void alone(Replica replica) throws Exception {
        db.reset();
        double wait = reportB(replica, "fair-alone");
        results.put(Metric.FAIR_ALONE, wait);
        progress("org B alone: " + ReportTable.format(wait) + " s from its report to its merge");
    }

    /** Org B's one conflict, reported while org A's backlog of {@code backlog} keeps every worker busy. */
    private void behind(Replica replica, int backlog, Metric figure) throws Exception {
        db.reset();
        UUID orgA = Seeder.orgId(ORG_A);
        seeder.pendingOnHoldOf("fair-import-" + backlog, backlog, ORG_A);
        db.settle();
        progress("org A's " + backlog + " conflicts claimable; org B reports one " + LEAD.toSeconds() + " s later");
        DrainRelease.releaseAll(db);
        ProviderBound.sleepUntil(System.nanoTime() + LEAD.toNanos());
        long aheadDone = seeder.count("done", orgA);
        double wait = reportB(replica, "fair-behind-" + backlog);
        long aLeft = seeder.count("pending", orgA);
        if (aLeft == 0) {
            throw new IllegalStateException("org A's backlog of " + backlog + " ran out before org B's conflict was "
                    + "merged, so B waited behind nothing: give org A a larger backlog");
        }
        long aDone = seeder.count("done", orgA);
        ProviderBound.holdAndSettle(db);
        results.put(figure, wait);
        results.note("fair_share_behind_" + backlog, "org A: " + aheadDone + " of " + backlog + " merged when org B "
                + "reported, " + (aDone - aheadDone) + " more while B's conflict waited and ran, " + aLeft
                + " still pending after B's merge");
        progress("org B behind org A's " + backlog + ": " + ReportTable.format(wait) + " s from its report to its "
                + "merge (" + aLeft + " of A's still pending)");
    }

    private double reportB(Replica replica, String dedupKey) throws Exception {
        UUID orgB = Seeder.orgId(ORG_B);
        String ingest = seeder.token("ingest", orgB);
        return new LoneConflict(db, fixture).report(replica, orgB, ingest, dedupKey, WAIT_LIMIT);
    }

    /** The three orgs of {@code mix}, all waiting, and each one's calls over the window against its due share. */
    private void shares(Replica replica, StandInProvider standIn, FairMix mix) throws Exception {
        db.reset();
        int[] backlogs = FairMix.BACKLOGS;
        List<UUID> oldestFirst = new ArrayList<>();
        String platform = seeder.token("platform", null);
        OrgWeights weights = new OrgWeights();
        for (int i = backlogs.length - 1; i >= 0; i--) {
            seeder.pendingOnHoldOf("fair-" + mix.key + "-" + backlogs[i], backlogs[i], mix.org(i));
            UUID org = Seeder.orgId(mix.org(i));
            weights.set(replica, platform, org, mix.weights[i]);
            oldestFirst.add(org);
        }
        db.settle();
        progress(mix.describe() + ": backlogs of " + java.util.Arrays.toString(backlogs) + " claimable, the largest "
                + "oldest; " + WARM_UP.toSeconds() + " s, then a " + WINDOW.toSeconds() + " s window");
        DrainRelease.releaseOldestFirst(db, oldestFirst);
        ProviderBound.sleepUntil(System.nanoTime() + WARM_UP.toNanos());

        CallsByOrg ledger = new CallsByOrg(db);
        Stats.Snapshot before = standIn.stats();
        OffsetDateTime from = ledger.now();
        ProviderBound.sleepUntil(System.nanoTime() + WINDOW.toNanos());
        OffsetDateTime to = ledger.now();
        Stats.Snapshot after = standIn.stats();
        long[] left = new long[backlogs.length];
        for (int i = 0; i < backlogs.length; i++) {
            left[i] = seeder.count("pending", Seeder.orgId(mix.org(i)));
            if (left[i] == 0) {
                throw new IllegalStateException("the backlog of " + backlogs[i] + " ran out during the window, so "
                        + "its org stopped waiting and its share understates what it was given");
            }
        }
        ProviderBound.holdAndSettle(db);
        Map<UUID, Long> calls = ledger.between(from, to);

        long all = calls.values().stream().mapToLong(Long::longValue).sum();
        if (all == 0) {
            throw new IllegalStateException("no call in the usage ledger in the window");
        }
        List<String> each = new ArrayList<>();
        for (int i = 0; i < backlogs.length; i++) {
            long own = calls.getOrDefault(Seeder.orgId(mix.org(i)), 0L);
            double share = own / (double) all;
            results.put(mix.figures[i], share / mix.due(i));
            each.add("backlog " + backlogs[i] + " (weight " + mix.weights[i] + "): " + own + " calls, share "
                    + ReportTable.format(share) + " of due " + ReportTable.format(mix.due(i)) + ", " + left[i]
                    + " still pending");
        }
        results.note("fair_share_" + mix.key, mix.describe() + ": " + all + " calls in the ledger in the window ("
                + (ProviderBound.answered(after) - ProviderBound.answered(before)) + " answered by the stand-in); "
                + String.join("; ", each));
        progress(mix.describe() + ": " + String.join("; ", each));
    }

    private void row(String name, Row row, Metric... metrics) {
        try {
            row.run();
        } catch (Exception e) {
            System.err.println("[bench] step 'fair shares, " + name + "' failed:");
            e.printStackTrace();
            results.error("fair shares, " + name, e);
            results.skipRemaining("failed: " + e, metrics);
        }
    }

    private static void progress(String message) {
        System.err.println("[bench] fair shares: " + message);
    }
}
