package io.mergesynthesis.bench;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import io.mergesynthesis.harness.Replica;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The provider-bound step's token rows: how much of a token limit the replicas use when it, not the request limit,
 * binds, on a key someone else has been spending. The stand-in limits each model with token buckets
 * ({@link TokenScenario}), the binding one at one of Anthropic's tiers and a tenth full at the first call, what is
 * left stated rounded to the nearest thousand; replicas of {@link TokenScenario#WORKERS} workers run the LLM
 * synthesizer against it, one replica and then three sharing the one key. The figures are measured from the
 * first call, with no warm-up: what the limit allowed is the starting level plus the refill since. After the
 * window the rest of the backlog is put on hold and the conflicts in hand let finish, so that the attempts lost
 * cover every conflict the scenario touched. Each scenario gets fresh replicas and a fresh stand-in, whose buckets
 * are made at its first call.
 */
final class TokenBound {

    /** The route's models: configured with prices in config.yml, served by the stand-in. */
    private static final String PRIMARY = "anthropic/claude-haiku-4-5";
    private static final String ESCALATION = "anthropic/claude-sonnet-4-5";
    /** How long the replicas may take to make the first call once the backlog is claimable. */
    private static final Duration FIRST_CALL_WITHIN = Duration.ofSeconds(60);

    private final Options options;
    private final BenchDatabase db;
    private final Seeder seeder;
    private final Results results;
    private final ProviderBound.Starter starter;

    TokenBound(Options options, BenchDatabase db, Seeder seeder, Results results, ProviderBound.Starter starter) {
        this.options = options;
        this.db = db;
        this.seeder = seeder;
        this.results = results;
        this.starter = starter;
    }

    void run() throws Exception {
        results.note("provider_tokens", "stand-in provider in the benchmark's JVM on loopback, Anthropic's "
                + "protocol, token buckets per model refilling over a minute, the binding one at a tier's limit and "
                + Math.round(TokenScenario.START_LEVEL * 100) + "% full at the first call, remaining tokens stated "
                + "rounded to the nearest thousand, the other token limit " + TokenScenario.OUT_OF_REACH
                + " times the tier's and full, no request limit, answers after " + TokenScenario.LATENCY.toMillis()
                + " ms, none escalated; replicas of " + TokenScenario.WORKERS + " workers, SYNTHESIZER=llm, other "
                + "settings at their defaults; each figure measured from the first call"
                + (options.quick() ? ", over " + TokenScenario.QUICK_WINDOW.toSeconds() + " s (--quick: a smoke "
                        + "run, the figures mean little)" : ", over the scenario's window"));
        Options.TokenRow row = options.tokenRow();
        for (TokenScenario scenario : TokenScenario.values()) {
            if (row != null && !row.measures(scenario)) {
                String why = "--token-row " + row.asGiven() + " measures only that row";
                results.skipRemaining(why, Metric.tokens(scenario, 1));
                results.skipRemaining(why, Metric.tokens(scenario, 3));
                continue;
            }
            for (int replicas : new int[] {1, 3}) {
                if (row != null && !row.measures(replicas)) {
                    results.skipRemaining("--token-row " + row.asGiven() + " measures only " + row.replicas()
                            + " replica(s)", Metric.tokens(scenario, replicas));
                    continue;
                }
                scenario(scenario, replicas);
            }
        }
    }

    private Duration window(TokenScenario scenario) {
        return options.quick() ? TokenScenario.QUICK_WINDOW : scenario.window;
    }

    /** Enough conflicts that the window cannot run out of them, twice what the limit lets through. */
    private int backlog(TokenScenario scenario) {
        double perCall = scenario.counted(scenario.inputPerCall, scenario.outputPerCall);
        double calls = scenario.allowed(window(scenario).toNanos() / 1e9) / perCall;
        return (int) Math.ceil(calls * 2) + 100;
    }

    /** One scenario with fresh replicas; a failure is recorded as this scenario's, and the next one runs. */
    private void scenario(TokenScenario scenario, int n) {
        Behaviour behaviour = new Behaviour().expectedKey(ProviderBound.KEY).confidence(0.9)
                .latency(TokenScenario.LATENCY)
                // Every answer reports the scenario's tokens, whatever the conflict: the calls' size is the
                // scenario's, not the seeded conflicts'.
                .countsTokens(false).usage(scenario.inputPerCall, scenario.outputPerCall, 0, 0)
                // An answer longer than its budget stops there, as the providers' do: a first call's budget cut
                // short is a paid call of its own, not a longer answer the output limit was charged less for.
                .cutAtMaxTokens(true)
                .tokenPeriod(TokenScenario.PERIOD)
                .tokenLimits(scenario.inputLimit(), scenario.outputLimit(), 0)
                .tokenStartLevels(scenario.inputStartLevel(), scenario.outputStartLevel(), 1)
                .roundsRemaining(true);
        List<Replica> replicas = new ArrayList<>();
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            db.reset();
            seeder.pendingOnHold("tokens-" + scenario.key, backlog(scenario));
            db.settle();
            for (int i = 1; i <= n; i++) {
                String name = "replica-tokens-" + scenario.key + "-" + n + "-" + i;
                progress("starting " + name + " (against the stand-in on port " + standIn.port() + ")");
                replicas.add(starter.start(name, Map.of("synthesis.workers", Integer.toString(TokenScenario.WORKERS)),
                        environment(standIn)));
            }
            measure(standIn, scenario, replicas);
        } catch (Exception e) {
            String name = "provider tokens, " + scenario.describe() + ", " + n + " replica(s)";
            System.err.println("[bench] step '" + name + "' failed:");
            e.printStackTrace();
            results.error(name, e);
            results.skipRemaining("failed: " + e, Metric.tokens(scenario, n));
        } finally {
            replicas.forEach(Replica::close);
        }
    }

    private static Map<String, String> environment(StandInProvider standIn) {
        Map<String, String> env = new LinkedHashMap<>(ProviderBound.environment(standIn));
        env.put("LLM_PRIMARY_MODEL", PRIMARY);
        env.put("LLM_ESCALATION_MODEL", ESCALATION);
        return env;
    }

    private void measure(StandInProvider standIn, TokenScenario scenario, List<Replica> replicas) throws Exception {
        int n = replicas.size();
        Duration window = window(scenario);
        progress(scenario.describe() + ", " + n + " replica(s): " + backlog(scenario) + " conflicts claimable, a "
                + window.toSeconds() + " s window from the first call");
        DrainRelease.releaseAll(db);
        double handBacksBefore = ProviderBound.sum(replicas, "synthesis_deferrals_total", null);
        long firstCall = awaitFirstCall(standIn);
        ProviderBound.sleepUntil(firstCall + window.toNanos());
        Stats.Snapshot at = standIn.stats();
        long handBacks = Math.round(ProviderBound.sum(replicas, "synthesis_deferrals_total", null) - handBacksBefore);
        long merged = seeder.count("done");
        long left = seeder.count("pending");
        if (left == 0) {
            throw new IllegalStateException("the backlog of " + backlog(scenario) + " ran out during the window, so "
                    + "the figures understate what the replicas could do: give the step a larger backlog");
        }
        double seconds = at.sinceFirstCall() / 1e9;
        long answered = ProviderBound.answered(at);
        long rateLimited = at.status(429);
        long counted = scenario.counted(at.inputLetIn(), at.outputLetIn());
        double allowed = scenario.allowed(seconds);
        double used = counted / allowed;
        double longestGap = at.longestGap() / 1e9;

        ProviderBound.holdAndSettle(db);
        ProviderBound.Accounting account = ProviderBound.account(db);

        put(scenario, n, TokenFigure.USED, used);
        if (answered > 0) {
            put(scenario, n, TokenFigure.RATE_LIMITED_SHARE, rateLimited / (double) answered);
        } else {
            results.skip(Metric.tokens(scenario, n, TokenFigure.RATE_LIMITED_SHARE),
                    "the stand-in answered no request in the window");
        }
        put(scenario, n, TokenFigure.ATTEMPTS_LOST, account.lost());
        put(scenario, n, TokenFigure.LONGEST_GAP, longestGap);
        put(scenario, n, TokenFigure.MERGED, merged / seconds);
        results.note("provider_tokens_" + scenario.key + "_" + n + "_replica" + (n == 1 ? "" : "s"),
                merged + " merged in " + ReportTable.format(seconds) + " s from the first call; "
                        + ReportTable.format(counted) + " tokens let in against the binding limit of "
                        + ReportTable.format(allowed) + " allowed (" + ReportTable.format(used * 100) + "%); "
                        + "stand-in in the window: " + at.requests() + " requests, " + answered + " answered, "
                        + rateLimited + " of them 429, " + at.inputLetIn() + " input and " + at.outputLetIn()
                        + " output tokens let in; longest gap between calls " + ReportTable.format(longestGap)
                        + " s (one call's refill " + ReportTable.format(scenario.oneCallsRefill().toMillis() / 1000.0)
                        + " s); the first gap, while the first call's answer was awaited, "
                        + ReportTable.format(at.firstGap() / 1e9) + " s, the longest after it "
                        + ReportTable.format(at.longestLaterGap() / 1e9) + " s, ending "
                        + ReportTable.format(at.longestLaterGapEnd() / 1e9) + " s after the first call; "
                        + handBacks + " conflicts handed back uncounted (no turn or slot in time, or a 429); "
                        + "whole scenario: " + account.describe());
        progress(scenario.describe() + ", " + n + " replica(s): " + ReportTable.format(used * 100)
                + "% of what the limit allowed, " + rateLimited + " of " + answered + " requests answered 429, "
                + account.lost() + " attempts lost, longest gap " + ReportTable.format(longestGap) + " s");
    }

    /** The stand-in's first call, in {@link System#nanoTime()}: the window is measured from it. */
    private static long awaitFirstCall(StandInProvider standIn) {
        long deadline = System.nanoTime() + FIRST_CALL_WITHIN.toNanos();
        while (true) {
            long now = System.nanoTime();
            long since = standIn.stats().sinceFirstCall();
            if (since >= 0) {
                return now - since;
            }
            if (now > deadline) {
                throw new IllegalStateException("no call reached the stand-in within " + FIRST_CALL_WITHIN.toSeconds()
                        + " s of the backlog being made claimable");
            }
            Replica.sleep(20);
        }
    }

    private void put(TokenScenario scenario, int replicas, TokenFigure figure, double value) {
        results.put(Metric.tokens(scenario, replicas, figure), value);
    }

    private static void progress(String message) {
        System.err.println("[bench] provider tokens: " + message);
    }
}
