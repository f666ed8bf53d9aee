package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The batch lane against the interactive lane (ADR 0072), side by side in one run, on one replica of
 * {@link #WORKERS} workers whose every model is {@link #MODEL} at its configured price, sent to the stand-in
 * provider, which answers a single call after {@link #LATENCY} and ends a batch by itself after the batch delay.
 * Four rows, in this order:
 *
 * <ul>
 *   <li>org B alone: org B (lane interactive) reports one conflict through {@code POST /v1/conflicts} every
 *       {@link #TRICKLE_EVERY}, nothing else waiting; each one's wait from its report stored to its merge stored
 *       ({@code received_at} to {@code synthesized_at}, the database's clock). Half the window here, half after
 *       the drains, pooled;</li>
 *   <li>the interactive lane: org A's backlog made claimable in one commit, drained by the workers; the time from
 *       that commit to its last merge stored, and what the usage ledger has for it;</li>
 *   <li>the batch lane: the same backlog of org A, in lane batch ({@code PUT /v1/orgs/{org_id}/synthesis}), made
 *       claimable in one commit while org B trickles as before; the time to its last merge stored, the ledger, and
 *       org B's waits over the drain against its waits alone;</li>
 *   <li>org B alone again.</li>
 * </ul>
 *
 * Costs, calls and tokens are the ledger's ({@link LaneCost}); times are the database's timestamps. The stand-in's
 * own count of the calls it answered and the batch requests it billed is set against the ledger's rows.
 */
final class BatchLaneDrains {

    static final String MODEL = "anthropic/claude-haiku-4-5";
    static final int WORKERS = 16;
    static final Duration LATENCY = Duration.ofMillis(200);
    static final Duration TRICKLE_EVERY = Duration.ofMillis(500);
    /** The model's {@code minCachedPrefixTokens} in config.yml, the stand-in's cache minimum. */
    private static final long HAIKU_CACHE_MINIMUM = 4_096;
    private static final String PROTOCOL = "anthropic";
    private static final String MESSAGES_PATH = "/v1/messages";

    private static final int WARM_UP_ORG = 9_100;
    private static final int ORG_A = 9_101;
    private static final int ORG_B = 9_102;
    private static final int WARM_UP_CONFLICTS = 32;
    private static final Duration WARM_UP_TRICKLE = Duration.ofSeconds(2);
    private static final Duration WAIT_FOR_B = Duration.ofSeconds(120);
    private static final Duration WATCH_EVERY = Duration.ofMillis(200);

    /** The sizes of one run: the backlog, the stand-in's batch delay, the poll interval and B's lone window. */
    record Sizes(int backlog, Duration batchDelay, Duration pollInterval, Duration aloneWindow, int maxRequests,
                 Duration drainLimit) {

        /** The stand-in's batch delay, the lane's poll interval and batch size, and org B's lone window. */
        String describe() {
            return "batches of up to " + maxRequests + " ended " + batchDelay.toSeconds() + " s after their create, "
                    + "polled every " + pollInterval.toSeconds() + " s, org B alone " + aloneWindow.toSeconds() + " s";
        }

        static Sizes of(Options options) {
            return options.quick()
                    ? new Sizes(options.batchRows(), Duration.ofSeconds(3), Duration.ofSeconds(1),
                            Duration.ofSeconds(6), 100, Duration.ofMinutes(3))
                    : new Sizes(options.batchRows(), Duration.ofSeconds(15), Duration.ofSeconds(2),
                            Duration.ofSeconds(30), 1_000, Duration.ofMinutes(30));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final BenchDatabase db;
    private final Seeder seeder;
    private final Fixture fixture;
    private final Results results;
    private final ProviderBound.Starter starter;
    private final Sizes sizes;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    BatchLaneDrains(Options options, BenchDatabase db, Seeder seeder, Fixture fixture, Results results,
                    ProviderBound.Starter starter) {
        this.db = db;
        this.seeder = seeder;
        this.fixture = fixture;
        this.results = results;
        this.starter = starter;
        this.sizes = Sizes.of(options);
    }

    void run() throws Exception {
        String setting = "one replica of " + WORKERS + " workers, SYNTHESIZER=llm, every model " + MODEL + " at "
                + "its configured price, sent to the stand-in provider in the benchmark's JVM (Anthropic's "
                + "protocol, counting tokens itself): a single call answered after " + LATENCY.toMillis()
                + " ms, no rate limit; a batch "
                + "ended by the stand-in " + sizes.batchDelay().toSeconds() + " s after its create; "
                + "llm.batch.pollInterval=" + sizes.pollInterval().toSeconds() + "s, llm.batch.maxRequests="
                + sizes.maxRequests() + "; org A's backlog " + sizes.backlog() + " conflicts; org B reports one "
                + "conflict every " + TRICKLE_EVERY.toMillis() + " ms through POST /v1/conflicts, its wait from "
                + "received_at to synthesized_at; drains from the commit that made the backlog claimable to its "
                + "last synthesized_at; costs, calls and tokens from llm_usage_events";
        results.note("batch_lane", setting);
        results.target(Metric.BATCH_LANE_INTERACTIVE_DRAIN, Metric.Target.context(WORKERS + " workers, a call "
                + "answered after " + LATENCY.toMillis() + " ms: at best " + ReportTable.format(
                        sizes.backlog() * LATENCY.toMillis() / 1000.0 / WORKERS) + " s"));
        results.target(Metric.BATCH_LANE_BATCH_DRAIN, Metric.Target.context("batches of up to "
                + sizes.maxRequests() + ", each ended " + sizes.batchDelay().toSeconds() + " s after its create, "
                + "polled every " + sizes.pollInterval().toSeconds() + " s"));
        // The stand-in counts each request's and answer's tokens itself, as in --merge-cost, with a prompt cache
        // from Haiku 4.5's minimum (never reached by a merge's prefix), so that the ledger's costs are of requests
        // of a merge's real size, not of a fixed usage figure.
        Behaviour behaviour = new Behaviour().confidence(0.9).expectedKey(ProviderBound.KEY).latency(LATENCY)
                .batchDelay(sizes.batchDelay()).countsTokens(true).cacheMinimumTokens(HAIKU_CACHE_MINIMUM);
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            db.reset();
            forgetOrgs();
            Map<String, String> overrides = new LinkedHashMap<>();
            overrides.put("synthesis.workers", Integer.toString(WORKERS));
            overrides.put("llm.batch.pollInterval", sizes.pollInterval().toSeconds() + "s");
            overrides.put("llm.batch.maxRequests", Integer.toString(sizes.maxRequests()));
            progress("starting replica-batch-lane (" + WORKERS + " workers, " + MODEL + " sent to the stand-in on "
                    + "port " + standIn.port() + ")");
            try (Replica replica = starter.start("replica-batch-lane", overrides, environment(standIn))) {
                Optional<String> poolMissing = Capabilities.poolMissing(replica);
                if (poolMissing.isPresent()) {
                    results.skipRemaining(poolMissing.get(), Metric.batchLane());
                    return;
                }
                warmUp(replica);
                // Org B alone before the drains and again after them, so that the machine's load over the step
                // (shared with other builds) weighs on its lone figures as on its figures during the drain.
                List<Double> alone = new ArrayList<>(bAlone(replica, "before"));
                Drained interactive = interactiveDrain(standIn);
                Drained batch = batchDrain(replica, standIn);
                alone.addAll(bAlone(replica, "after"));
                report(new Percentiles(alone.stream().mapToDouble(Double::doubleValue).toArray()), interactive,
                        batch);
            } finally {
                forgetOrgs();
            }
        }
    }

    /** Every provider of the configuration sent to the stand-in; the primary and escalation model {@link #MODEL}. */
    static Map<String, String> environment(StandInProvider standIn) {
        Map<String, String> env = new LinkedHashMap<>(ProviderBound.environment(standIn));
        env.put("LLM_PRIMARY_MODEL", MODEL);
        env.put("LLM_ESCALATION_MODEL", MODEL);
        return env;
    }

    /** A drain of a few conflicts, then a few of org B's reports through the API, none of them counted. */
    private void warmUp(Replica replica) throws Exception {
        progress("warming the replica up on " + WARM_UP_CONFLICTS + " conflicts and org B's first reports");
        seeder.pendingOnHoldOf("batch-lane-warm-up", WARM_UP_CONFLICTS, WARM_UP_ORG);
        DrainRelease.releaseAll(db);
        DrainWatch.awaitDrained(db, System.nanoTime(), Duration.ofSeconds(60));
        Trickle trickle = new Trickle(replica, seeder.token("ingest", Seeder.orgId(ORG_B)), "warm-up");
        trickle.start();
        ProviderBound.sleepUntil(System.nanoTime() + WARM_UP_TRICKLE.toNanos());
        trickle.stop();
        waitsOf(trickle.ids(), null);
        db.reset();
    }

    /** Org B's trickle with nothing else waiting, for half of {@link Sizes#aloneWindow}: its waits in ms. */
    private List<Double> bAlone(Replica replica, String when) throws Exception {
        Duration window = sizes.aloneWindow().dividedBy(2);
        progress("org B alone, " + when + " the drains: one conflict every " + TRICKLE_EVERY.toMillis() + " ms for "
                + window.toSeconds() + " s");
        String load = loadAverage();
        Trickle trickle = new Trickle(replica, seeder.token("ingest", Seeder.orgId(ORG_B)), "alone-" + when);
        trickle.start();
        ProviderBound.sleepUntil(System.nanoTime() + window.toNanos());
        trickle.stop();
        double[] millis = waitsOf(trickle.ids(), null);
        Percentiles waits = new Percentiles(millis);
        String said = waits.count() + " conflicts over " + window.toSeconds() + " s, p50 "
                + ReportTable.format(waits.at(50)) + " ms, p95 " + ReportTable.format(waits.at(95)) + " ms; load "
                + "average " + load + " before, " + loadAverage() + " after";
        results.note("batch_lane_org_b_alone_" + when, said);
        progress("org B alone, " + when + " the drains: " + said);
        db.reset();
        return java.util.Arrays.stream(millis).boxed().toList();
    }

    /** The machine's one-minute load average, shared with other builds. */
    private static String loadAverage() {
        return ReportTable.format(java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage());
    }

    /** One lane's drain of org A's backlog. */
    private record Drained(double seconds, LaneCost cost, long providerCalls, String detail) {
    }

    private Drained interactiveDrain(StandInProvider standIn) throws Exception {
        UUID orgA = Seeder.orgId(ORG_A);
        seeder.pendingOnHoldOf("batch-lane-interactive", sizes.backlog(), ORG_A);
        db.settle();
        progress("interactive lane: org A's " + sizes.backlog() + " conflicts claimable");
        Stats.Snapshot before = standIn.stats();
        String loadBefore = loadAverage();
        OffsetDateTime released = new CallsByOrg(db).now();
        DrainRelease.releaseAll(db);
        awaitFinished(orgA, "interactive lane");
        String load = "load average " + loadBefore + " before, " + loadAverage() + " after";
        double seconds = drainSeconds(orgA, released);
        Stats.Snapshot after = standIn.stats();
        LaneCost cost = LaneCost.read(db, orgA, "interactive");
        LaneCost strays = LaneCost.read(db, orgA, "batch");
        long calls = after.path(MESSAGES_PATH) - before.path(MESSAGES_PATH);
        Drained drained = new Drained(seconds, cost, calls, "ledger: " + cost + (strays.calls() == 0 ? ""
                : "; and in lane batch: " + strays) + "; the stand-in answered " + calls + " calls; " + load);
        progress("interactive lane: drained in " + ReportTable.format(seconds) + " s; " + drained.detail());
        db.reset();
        return drained;
    }

    private Drained batchDrain(Replica replica, StandInProvider standIn) throws Exception {
        UUID orgA = Seeder.orgId(ORG_A);
        String platform = seeder.token("platform", null);
        setLane(replica, platform, orgA, "batch");
        seeder.pendingOnHoldOf("batch-lane-batch", sizes.backlog(), ORG_A);
        db.settle();
        Trickle trickle = new Trickle(replica, seeder.token("ingest", Seeder.orgId(ORG_B)), "during");
        progress("batch lane: org A (lane batch) has " + sizes.backlog() + " conflicts claimable; org B trickles "
                + "meanwhile");
        Stats.Snapshot before = standIn.stats();
        String loadBefore = loadAverage();
        OffsetDateTime released = new CallsByOrg(db).now();
        trickle.start();
        OffsetDateTime drainedAt;
        try {
            DrainRelease.releaseAll(db);
            awaitFinished(orgA, "batch lane");
        } finally {
            trickle.stop();
        }
        String load = "load average " + loadBefore + " before, " + loadAverage() + " after";
        double seconds = drainSeconds(orgA, released);
        drainedAt = released.plusNanos((long) (seconds * 1e9));
        Percentiles during = new Percentiles(waitsOf(trickle.ids(), drainedAt));
        Stats.Snapshot after = standIn.stats();
        LaneCost cost = LaneCost.read(db, orgA, "batch");
        LaneCost strays = LaneCost.read(db, orgA, "interactive");
        long billed = after.batchBilled(PROTOCOL) - before.batchBilled(PROTOCOL);
        long made = after.batches(PROTOCOL) - before.batches(PROTOCOL);
        String batches = batchRows(orgA);
        Drained drained = new Drained(seconds, cost, billed, "ledger: " + cost + (strays.calls() == 0 ? ""
                : "; and in lane interactive: " + strays) + "; the stand-in made " + made + " batches and billed "
                + billed + " requests; " + batches + "; org B: " + during.count() + " conflicts reported during the "
                + "drain, p50 " + ReportTable.format(during.at(50)) + " ms, p95 " + ReportTable.format(during.at(95))
                + " ms; " + load);
        progress("batch lane: drained in " + ReportTable.format(seconds) + " s; " + drained.detail());
        results.put(Metric.BATCH_LANE_B_DURING_P50, during.at(50));
        results.put(Metric.BATCH_LANE_B_DURING_P95, during.at(95));
        setLane(replica, platform, orgA, "interactive");
        db.reset();
        return drained;
    }

    private void report(Percentiles alone, Drained interactive, Drained batch) {
        results.put(Metric.BATCH_LANE_B_ALONE_P50, alone.at(50));
        results.put(Metric.BATCH_LANE_B_ALONE_P95, alone.at(95));
        results.ratio(Metric.BATCH_LANE_B_P95_RATIO, Metric.BATCH_LANE_B_DURING_P95, Metric.BATCH_LANE_B_ALONE_P95);

        results.put(Metric.BATCH_LANE_INTERACTIVE_COST, interactive.cost().usdPerThousandMerges());
        results.put(Metric.BATCH_LANE_BATCH_COST, batch.cost().usdPerThousandMerges());
        results.put(Metric.BATCH_LANE_COST_RATIO, batch.cost().costRatioTo(interactive.cost()));
        results.put(Metric.BATCH_LANE_INTERACTIVE_CALLS, interactive.cost().callsPerMerge());
        results.put(Metric.BATCH_LANE_BATCH_CALLS, batch.cost().callsPerMerge());
        results.put(Metric.BATCH_LANE_INTERACTIVE_INPUT, interactive.cost().inputTokensPerMerge());
        results.put(Metric.BATCH_LANE_BATCH_INPUT, batch.cost().inputTokensPerMerge());
        results.put(Metric.BATCH_LANE_INTERACTIVE_OUTPUT, interactive.cost().outputTokensPerMerge());
        results.put(Metric.BATCH_LANE_BATCH_OUTPUT, batch.cost().outputTokensPerMerge());
        results.put(Metric.BATCH_LANE_INTERACTIVE_DRAIN, interactive.seconds());
        results.put(Metric.BATCH_LANE_BATCH_DRAIN, batch.seconds());
        results.ratio(Metric.BATCH_LANE_DRAIN_RATIO, Metric.BATCH_LANE_BATCH_DRAIN,
                Metric.BATCH_LANE_INTERACTIVE_DRAIN);
        results.note("batch_lane_interactive", interactive.detail());
        results.note("batch_lane_batch", batch.detail());
        // A paid call the ledger does not have, or has twice, is the service's fault: said, not hidden in a ratio.
        List<String> mismatches = new ArrayList<>();
        if (interactive.providerCalls() != interactive.cost().calls()) {
            mismatches.add("interactive lane: the stand-in answered " + interactive.providerCalls()
                    + " calls, the ledger has " + interactive.cost().calls());
        }
        if (batch.providerCalls() != batch.cost().calls()) {
            mismatches.add("batch lane: the stand-in billed " + batch.providerCalls() + " requests, the ledger has "
                    + batch.cost().calls());
        }
        results.note("batch_lane_ledger_check", mismatches.isEmpty()
                ? "every call the stand-in answered and every batch request it billed is one ledger row"
                : String.join("; ", mismatches));
        mismatches.forEach(m -> progress("LEDGER MISMATCH: " + m));
    }

    /** Waits until none of the org's conflicts is pending, in progress or batched, within the drain limit. */
    private void awaitFinished(UUID org, String lane) throws Exception {
        long deadline = System.nanoTime() + sizes.drainLimit().toNanos();
        long nextWord = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT synthesis_state, count(*) FROM policy_conflicts WHERE org_id = ? GROUP BY 1 ORDER BY 1")) {
            s.setObject(1, org);
            while (true) {
                Map<String, Long> states = new LinkedHashMap<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        states.put(rs.getString(1), rs.getLong(2));
                    }
                }
                long open = states.getOrDefault("pending", 0L) + states.getOrDefault("in_progress", 0L)
                        + states.getOrDefault("batched", 0L);
                if (open == 0) {
                    long done = states.getOrDefault("done", 0L);
                    if (done != sizes.backlog()) {
                        throw new IllegalStateException(lane + ": org A's backlog finished with " + done + " of "
                                + sizes.backlog() + " merged: " + states);
                    }
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(lane + ": org A's backlog not drained after "
                            + sizes.drainLimit().toMinutes() + " min: " + states);
                }
                if (System.nanoTime() > nextWord) {
                    progress(lane + ": " + states);
                    nextWord = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                }
                Replica.sleep(WATCH_EVERY.toMillis());
            }
        }
    }

    /** From {@code released} to the org's last merge stored, in seconds, on the database's clock. */
    private double drainSeconds(UUID org, OffsetDateTime released) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT extract(epoch FROM max(synthesized_at) - ?) FROM policy_conflicts "
                        + "WHERE org_id = ? AND synthesis_state = 'done'")) {
            s.setObject(1, released);
            s.setObject(2, org);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getDouble(1);
            }
        }
    }

    /** The org's batches as the batch lane's rows have them. */
    private String batchRows(UUID org) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*), coalesce(sum(requests), 0), count(*) FILTER (WHERE state = 'done'), "
                        + "extract(epoch FROM max(sent_at) - min(created_at)), "
                        + "extract(epoch FROM max(ended_at) - min(created_at)) FROM llm_batches WHERE org_id = ?")) {
            s.setObject(1, org);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1) + " batch rows (" + rs.getLong(3) + " done) holding " + rs.getLong(2)
                        + " requests, the last sent " + ReportTable.format(rs.getDouble(4)) + " s and the last seen "
                        + "ended " + ReportTable.format(rs.getDouble(5)) + " s after the first was opened";
            }
        }
    }

    /**
     * The waits of org B's conflicts {@code ids}, report to merge in milliseconds, once every one is merged; with
     * {@code reportedBy}, only those reported by then.
     */
    private double[] waitsOf(List<UUID> ids, OffsetDateTime reportedBy) throws Exception {
        if (ids.isEmpty()) {
            throw new IllegalStateException("org B reported no conflict");
        }
        long deadline = System.nanoTime() + WAIT_FOR_B.toNanos();
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FILTER (WHERE synthesis_state <> 'done'), "
                        + "array_agg(extract(epoch FROM synthesized_at - received_at) * 1000) FILTER "
                        + "(WHERE synthesis_state = 'done' AND (?::timestamptz IS NULL OR received_at <= ?)) "
                        + "FROM policy_conflicts WHERE id = ANY (?)")) {
            Array array = c.createArrayOf("uuid", ids.toArray());
            s.setObject(1, reportedBy);
            s.setObject(2, reportedBy);
            s.setArray(3, array);
            while (true) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    long open = rs.getLong(1);
                    if (open == 0) {
                        Array waits = rs.getArray(2);
                        if (waits == null) {
                            throw new IllegalStateException("none of org B's conflicts was reported in the window");
                        }
                        Object[] values = (Object[]) waits.getArray();
                        double[] millis = new double[values.length];
                        for (int i = 0; i < values.length; i++) {
                            millis[i] = ((Number) values[i]).doubleValue();
                        }
                        return millis;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(open + " of org B's " + ids.size() + " conflicts not merged "
                                + WAIT_FOR_B.toSeconds() + " s after the last report");
                    }
                }
                Replica.sleep(WATCH_EVERY.toMillis());
            }
        }
    }

    /** {@code PUT /v1/orgs/{org}/synthesis} with {@code {"lane": lane}} and a platform token. */
    private void setLane(Replica replica, String platformToken, UUID org, String lane) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platformToken)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"lane\":\"" + lane + "\"}"))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("PUT /v1/orgs/" + org + "/synthesis answered " + response.statusCode() + ": "
                    + response.body());
        }
    }

    /**
     * The step's orgs' settings and batch rows go, so that org A starts in lane interactive and no later step
     * meets its lane or a batch of its (the emptied tables between steps keep both).
     */
    private void forgetOrgs() throws SQLException {
        try (Connection c = db.connect(); PreparedStatement settings = c.prepareStatement(
                "DELETE FROM org_synthesis_settings WHERE org_id = ANY (?)");
             PreparedStatement batches = c.prepareStatement("DELETE FROM llm_batches WHERE org_id = ANY (?)")) {
            Array orgs = c.createArrayOf("uuid", new Object[] {Seeder.orgId(WARM_UP_ORG), Seeder.orgId(ORG_A),
                    Seeder.orgId(ORG_B)});
            settings.setArray(1, orgs);
            settings.executeUpdate();
            batches.setArray(1, orgs);
            batches.executeUpdate();
        }
    }

    /** Org B's conflicts, one every {@link #TRICKLE_EVERY}, each reported through the API with its ingest token. */
    private final class Trickle {
        private final Replica replica;
        private final String token;
        private final String name;
        private final List<UUID> ids = new CopyOnWriteArrayList<>();
        private final List<Exception> failures = new CopyOnWriteArrayList<>();
        private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-trickle");
            t.setDaemon(true);
            return t;
        });

        Trickle(Replica replica, String token, String name) {
            this.replica = replica;
            this.token = token;
            this.name = name;
        }

        void start() {
            clock.scheduleAtFixedRate(this::reportOne, 0, TRICKLE_EVERY.toNanos(), TimeUnit.NANOSECONDS);
        }

        void stop() throws Exception {
            clock.shutdown();
            if (!clock.awaitTermination(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("org B's trickle did not stop");
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        }

        List<UUID> ids() {
            return List.copyOf(ids);
        }

        private void reportOne() {
            UUID org = Seeder.orgId(ORG_B);
            String report = "{\"org_id\":\"" + org + "\",\"dedup_key\":\"batch-lane-b-" + name + "-" + ids.size()
                    + "\",\"action\":\"" + fixture.action() + "\",\"target\":\"" + fixture.target() + "\",\"rules\":"
                    + fixture.rulesJson(org) + ",\"winner_policy_id\":\"" + fixture.winnerPolicyId()
                    + "\",\"detected_at\":\"" + Instant.now() + "\"}";
            try {
                HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/conflicts"))
                        .header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(report))
                        .build();
                HttpResponse<String> response = http.send(request,
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (response.statusCode() != 201) {
                    throw new IOException("POST /v1/conflicts answered " + response.statusCode() + ": "
                            + response.body());
                }
                ids.add(UUID.fromString(JSON.readTree(response.body()).get("id").asText()));
            } catch (Exception e) {
                failures.add(e);
                clock.shutdown();
            }
        }
    }

    private static void progress(String message) {
        System.err.println("[bench] batch lane: " + message);
    }
}
