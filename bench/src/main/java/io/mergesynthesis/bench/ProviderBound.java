package io.mergesynthesis.bench;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import io.mergesynthesis.harness.Replica;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * Throughput when the provider, not the database, is the limit. The stand-in provider runs in this JVM on
 * loopback with a requests-per-second limit L, one window for every replica (stated on every answer in the
 * protocol's rate-limit headers, or in one scenario not at all; 429 with {@code retry-after} beyond it) and a
 * latency T per answer; replicas of {@link ProviderScenario#WORKERS} workers run the LLM synthesizer against it
 * ({@code SYNTHESIZER=llm}, primary and escalation model both {@code local/stand-in}, so no call escalates), with
 * every other setting at its default. Each scenario runs with one replica and then with three sharing the one
 * stand-in.
 *
 * <p>A backlog is made claimable in one commit, as in the drains; the figures come from a steady window after a
 * warm-up (from the first call where the limit is not stated: finding it is what that row measures), not from
 * draining the whole backlog, which at 2 conflicts a second would take over an hour. Merges
 * are counted in the database, requests and 429s at the stand-in, uncounted hand-backs from the replicas'
 * {@code synthesis_deferrals_total}, connections in use from {@code pg_stat_activity}. After the window the
 * rest of the backlog is put on hold again and the conflicts in hand are let finish, so that the attempts lost
 * (counted attempts that merged nothing) cover every conflict the scenario touched.
 *
 * <p>The replicas are started once for the one-replica scenarios and once more (all three) for the others, not
 * per scenario, which would cost more than the windows on a small machine. The scenarios run in {@link #ORDER},
 * those that draw 429s last, so that none starts with a concurrency limit another one halved.
 */
final class ProviderBound {

    /** Starts a replica with the plan's settings plus these overrides and environment variables. */
    interface Starter {
        Replica start(String name, Map<String, String> overrides, Map<String, String> environment)
                throws Replica.RefusedToStart;
    }

    static final String MODEL = "stand-in";
    /**
     * The order the scenarios run in: those the workers bound first, then the one a stated rate limit bounds, and
     * last the one whose limit is found from 429s.
     */
    static final List<ProviderScenario> ORDER = List.of(ProviderScenario.SLOW_ANSWERS,
            ProviderScenario.MANY_ANSWERS, ProviderScenario.FAST_ANSWERS, ProviderScenario.UNSTATED_LIMIT);
    static final String KEY = "bench-stand-in-key";
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(90);

    private final Options options;
    private final BenchDatabase db;
    private final Seeder seeder;
    private final Results results;
    private final Starter starter;

    ProviderBound(Options options, BenchDatabase db, Seeder seeder, Results results, Starter starter) {
        this.options = options;
        this.db = db;
        this.seeder = seeder;
        this.results = results;
        this.starter = starter;
    }

    void run() throws Exception {
        results.note("provider_bound", "stand-in provider in the benchmark's JVM on loopback; replicas of "
                + ProviderScenario.WORKERS + " workers, SYNTHESIZER=llm, primary = escalation = local/" + MODEL
                + ", other settings at their defaults; backlog " + options.providerBacklog() + " per scenario; "
                + "each figure from a " + options.providerWindowSeconds() + " s window after "
                + options.providerWarmUpSeconds() + " s of warm-up (none where the limit is not stated; the backlog "
                + "is not drained); one set of replicas "
                + "per replica count serves the scenarios in the order " + ORDER.stream()
                .map(ProviderScenario::describe).toList() + "; the 3-replica bound is min(L, 12 workers / T)");
        Behaviour behaviour = new Behaviour().confidence(0.9).expectedKey(KEY);
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            Map<String, String> environment = environment(standIn);
            for (int replicas : new int[] {1, 3}) {
                if (!phase(standIn, environment, replicas)) {
                    return;
                }
            }
        }
    }

    /**
     * Fresh replicas for every scenario in {@link #ORDER}. False when the build cannot run the step (the rest is
     * then skipped with the reason).
     */
    private boolean phase(StandInProvider standIn, Map<String, String> environment, int count) throws Exception {
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 1; i <= count; i++) {
                String name = "replica-llm-" + count + "-" + i;
                progress("starting " + name + " (SYNTHESIZER=llm against the stand-in on port " + standIn.port() + ")");
                try {
                    replicas.add(starter.start(name, overrides(), environment));
                } catch (Replica.RefusedToStart e) {
                    if (count > 1) {
                        throw e;
                    }
                    results.skipRemaining("the replica refused SYNTHESIZER=llm with the local provider: "
                            + e.getMessage().lines().findFirst().orElse(""), Metric.provider());
                    return false;
                }
            }
            Optional<String> poolMissing = Capabilities.poolMissing(replicas.get(0));
            if (poolMissing.isPresent()) {
                results.skipRemaining(poolMissing.get(), Metric.provider());
                return false;
            }
            for (ProviderScenario scenario : ORDER) {
                scenario(standIn, scenario, replicas);
            }
            return true;
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    private static Map<String, String> overrides() {
        return Map.of("synthesis.workers", Integer.toString(ProviderScenario.WORKERS));
    }

    /** Every provider the configuration names points at the stand-in: nothing can leave the machine. */
    static Map<String, String> environment(StandInProvider standIn) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SYNTHESIZER", "llm");
        env.put("LLM_PRIMARY_MODEL", "local/" + MODEL);
        env.put("LLM_ESCALATION_MODEL", "local/" + MODEL);
        env.put("LOCAL_LLM_BASE_URL", standIn.openAiBaseUrl());
        env.put("LOCAL_LLM_MODEL", MODEL);
        env.put("LOCAL_LLM_API_KEY", KEY);
        env.put("ANTHROPIC_BASE_URL", standIn.anthropicBaseUrl());
        env.put("ANTHROPIC_API_KEY", KEY);
        env.put("OPENAI_BASE_URL", standIn.openAiBaseUrl());
        env.put("OPENAI_API_KEY", KEY);
        return env;
    }

    /** One scenario on the replicas given; a failure is recorded as this scenario's, and the next one runs. */
    private void scenario(StandInProvider standIn, ProviderScenario scenario, List<Replica> replicas) {
        int n = replicas.size();
        try {
            measure(standIn, scenario, replicas);
        } catch (Exception e) {
            String name = "provider-bound " + scenario.describe() + ", " + n + " replica(s)";
            System.err.println("[bench] step '" + name + "' failed:");
            e.printStackTrace();
            results.error(name, e);
            results.skipRemaining("failed: " + e, Metric.provider(scenario, n));
        }
    }

    private void measure(StandInProvider standIn, ProviderScenario scenario, List<Replica> replicas)
            throws Exception {
        int n = replicas.size();
        int backlog = options.providerBacklog();
        db.reset();
        seeder.pendingOnHold("provider-" + scenario.key(), backlog);
        db.settle();
        standIn.behaviour().latency(scenario.latency).rateLimitPerSecond(scenario.limit)
                .statesRateLimit(scenario.stated);
        // A limit nobody states is measured from the first call: finding it is part of what the row measures.
        int warmUp = scenario.stated ? options.providerWarmUpSeconds() : 0;
        progress(scenario.describe() + ", " + n + " replica(s): " + backlog + " conflicts claimable, "
                + warmUp + " s warm-up, then a " + options.providerWindowSeconds()
                + " s window (bound " + ReportTable.format(scenario.bound(n)) + " conflicts/s)");

        DrainRelease.releaseAll(db);
        long released = System.nanoTime();
        sleepUntil(released + Duration.ofSeconds(warmUp).toNanos());

        long doneBefore = seeder.count("done");
        double handBacksBefore = sum(replicas, "synthesis_deferrals_total", null);
        Stats.Snapshot before = standIn.stats();
        String[] names = replicas.stream().map(Replica::applicationName).toArray(String[]::new);
        List<String> perSecond = new ArrayList<>();
        Stats.Snapshot last = before;
        ConnectionSampler.Usage usage;
        long windowStart = System.nanoTime();
        ConnectionSampler sampler = new ConnectionSampler(db, names);
        try (sampler) {
            for (int second = 1; second <= options.providerWindowSeconds(); second++) {
                sleepUntil(windowStart + second * 1_000_000_000L);
                Stats.Snapshot now = standIn.stats();
                perSecond.add((now.status(200) - last.status(200)) + "/" + (now.status(429) - last.status(429)));
                last = now;
            }
        } finally {
            usage = sampler.stop();
        }
        double seconds = (System.nanoTime() - windowStart) / 1e9;
        long merged = seeder.count("done") - doneBefore;
        double handBacks = sum(replicas, "synthesis_deferrals_total", null) - handBacksBefore;
        List<Double> limits = new ArrayList<>();
        for (Replica replica : replicas) {
            OptionalDouble limit = MetricsText.value(replica.metrics(), "llm_concurrency_limit", "provider=\"local\"");
            limits.add(limit.isPresent() ? limit.getAsDouble() : Double.NaN);
        }
        long left = seeder.count("pending");
        if (left == 0) {
            throw new IllegalStateException("the backlog of " + backlog + " ran out during the window, so the rate "
                    + "understates what the replicas could do: give the step a larger backlog");
        }

        long answered = answered(last) - answered(before);
        long rateLimited = last.status(429) - before.status(429);
        holdAndSettle(db);
        Accounting account = account(db);

        double perSecondMerged = merged / seconds;
        put(scenario, n, ProviderFigure.MERGED, perSecondMerged);
        put(scenario, n, ProviderFigure.TO_TARGET, perSecondMerged / scenario.bound(n));
        if (answered > 0) {
            put(scenario, n, ProviderFigure.RATE_LIMITED_SHARE, rateLimited / (double) answered);
        } else {
            results.skip(Metric.provider(scenario, n, ProviderFigure.RATE_LIMITED_SHARE),
                    "the stand-in answered no request in the window");
        }
        put(scenario, n, ProviderFigure.HAND_BACKS, handBacks);
        put(scenario, n, ProviderFigure.ATTEMPTS_LOST, account.lost());
        put(scenario, n, ProviderFigure.MEAN_CONNECTIONS, usage.mean());
        put(scenario, n, ProviderFigure.PEAK_CONNECTIONS, usage.peak());
        if (limits.stream().anyMatch(d -> d.isNaN())) {
            results.skip(Metric.provider(scenario, n, ProviderFigure.CONCURRENCY),
                    "no llm_concurrency_limit{provider=\"local\"} on a replica's /metrics");
        } else {
            put(scenario, n, ProviderFigure.CONCURRENCY,
                    limits.stream().mapToDouble(Double::doubleValue).average().orElse(0));
        }
        results.note("provider_" + scenario.key() + "_" + n + "_replica" + (n == 1 ? "" : "s"),
                merged + " merged in " + ReportTable.format(seconds) + " s (" + left + " of " + backlog
                        + " still pending at the window's end); stand-in in the window: " + answered
                        + " answered, " + rateLimited + " of them 429; answered 200/429 per second: "
                        + String.join(" ", perSecond) + "; whole scenario: " + account.describe()
                        + "; llm_concurrency_limit at the end " + limits
                        + "; DB connections sampled " + usage.samples() + " times");
        progress(scenario.describe() + ", " + n + " replica(s): " + ReportTable.format(perSecondMerged)
                + " merged/s, " + rateLimited + " of " + answered + " requests answered 429, " + (long) handBacks
                + " hand-backs, " + account.lost() + " attempts lost, concurrency " + limits);
    }

    private void put(ProviderScenario scenario, int replicas, ProviderFigure figure, double value) {
        results.put(Metric.provider(scenario, replicas, figure), value);
    }

    static long answered(Stats.Snapshot stats) {
        return stats.byStatus().values().stream().mapToLong(Long::longValue).sum();
    }

    static double sum(List<Replica> replicas, String name, String label) {
        double total = 0;
        for (Replica replica : replicas) {
            total += MetricsText.value(replica.metrics(), name, label).orElse(0);
        }
        return total;
    }

    /**
     * Puts the rest of the backlog on hold again (also conflicts handed back meanwhile, whose wait would end
     * soon) and waits until no conflict is in hand, so that every attempt begun has been counted or handed back.
     */
    static void holdAndSettle(BenchDatabase db) throws SQLException {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement()) {
            while (true) {
                int held = s.executeUpdate("UPDATE policy_conflicts SET not_before = now() + interval '10 years' "
                        + "WHERE synthesis_state = 'pending' AND not_before < now() + interval '1 year'");
                long inHand;
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM policy_conflicts "
                        + "WHERE synthesis_state = 'in_progress'")) {
                    rs.next();
                    inHand = rs.getLong(1);
                }
                if (held == 0 && inHand == 0) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(inHand + " conflicts still in progress " + SETTLE_LIMIT.toSeconds()
                            + " s after the backlog was put on hold");
                }
                Replica.sleep(100);
            }
        }
    }

    /** What the scenario did to its conflicts, once none is in hand. */
    record Accounting(long merged, long attempts, long mergedLater, long givenUp, Map<String, Long> ledger,
                      Map<String, Long> history) {

        /** Counted attempts that stored no merge: every merge counts exactly one attempt, or one was lost. */
        long lost() {
            return attempts - merged;
        }

        String describe() {
            return merged + " merged, " + attempts + " attempts counted, " + mergedLater
                    + " merged after their first attempt, " + givenUp + " given up; ledger rows by outcome "
                    + ledger + "; attempt history by outcome/reason " + history;
        }
    }

    static Accounting account(BenchDatabase db) throws SQLException {
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement()) {
            long merged;
            long attempts;
            long mergedLater;
            long givenUp;
            try (ResultSet rs = s.executeQuery("""
                    SELECT count(*) FILTER (WHERE synthesis_state = 'done'),
                           coalesce(sum(attempts), 0),
                           count(*) FILTER (WHERE synthesis_state = 'done' AND attempts <> 1),
                           count(*) FILTER (WHERE synthesis_state = 'max_attempts_exceeded')
                    FROM policy_conflicts""")) {
                rs.next();
                merged = rs.getLong(1);
                attempts = rs.getLong(2);
                mergedLater = rs.getLong(3);
                givenUp = rs.getLong(4);
            }
            Map<String, Long> ledger = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT outcome, count(*) FROM llm_usage_events GROUP BY outcome")) {
                while (rs.next()) {
                    ledger.put(rs.getString(1), rs.getLong(2));
                }
            }
            Map<String, Long> history = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT outcome || '/' || reason, count(*) "
                    + "FROM synthesis_attempt_history GROUP BY 1")) {
                while (rs.next()) {
                    history.put(rs.getString(1), rs.getLong(2));
                }
            }
            return new Accounting(merged, attempts, mergedLater, givenUp, ledger, history);
        }
    }

    static void sleepUntil(long nanos) {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            Replica.sleep(Math.max(1, left / 1_000_000));
        }
    }

    private static void progress(String message) {
        System.err.println("[bench] provider-bound: " + message);
    }
}
