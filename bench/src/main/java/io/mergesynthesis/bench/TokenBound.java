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
 * The provider-bound step's token rows: throughput when a provider's token limit, not its request limit, binds.
 * The stand-in counts every request's and answer's tokens by their length and limits each model with token buckets
 * ({@link TokenScenario}); replicas of {@link TokenScenario#WORKERS} workers run the LLM synthesizer against it, the
 * route's primary and escalation models both served by the scenario's protocol, one replica and then three
 * sharing the one key. As in {@link ProviderBound}, the figures come from a steady window after a warm-up, and
 * after the window the rest of the backlog is put on hold and the conflicts in hand let finish, so that the attempts
 * lost cover every conflict the scenario touched. Each scenario gets fresh replicas and a fresh stand-in: the
 * buckets and the replicas' pace start from what a new deployment would see.
 */
final class TokenBound {

    /** The models of the route, by protocol: configured with prices in config.yml, served by the stand-in. */
    private static final Map<String, String[]> MODELS = Map.of(
            "anthropic", new String[] {"anthropic/claude-haiku-4-5", "anthropic/claude-sonnet-4-5"},
            "openai", new String[] {"openai/gpt-4.1-mini", "openai/gpt-4.1"});

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
        results.note("provider_tokens", "stand-in provider in the benchmark's JVM on loopback, counting tokens as "
                + "characters / 4, token buckets per model refilling over " + TokenScenario.PERIOD.toSeconds()
                + " s, no request limit, answers after " + TokenScenario.LATENCY.toMillis() + " ms, "
                + Math.round(TokenScenario.UNSURE_SHARE * 100) + "% of answers unsure (escalated); replicas of "
                + TokenScenario.WORKERS + " workers, SYNTHESIZER=llm, other settings at their defaults; backlog "
                + options.providerBacklog() + " per scenario; each figure from a " + options.providerWindowSeconds()
                + " s window after " + options.providerWarmUpSeconds() + " s of warm-up");
        for (TokenScenario scenario : TokenScenario.values()) {
            for (int replicas : new int[] {1, 3}) {
                scenario(scenario, replicas);
            }
        }
    }

    /** One scenario with fresh replicas; a failure is recorded as this scenario's, and the next one runs. */
    private void scenario(TokenScenario scenario, int n) {
        Behaviour behaviour = new Behaviour().expectedKey(ProviderBound.KEY).confidence(0.9)
                .unsureShare(TokenScenario.UNSURE_SHARE).countsTokens(true).latency(TokenScenario.LATENCY)
                // These rows measure pacing to a stated limit: with no prefix cached, every call's input counts
                // against it in full, as the scenarios' limits were sized for (the cost rows measure caching).
                .cacheMinimumTokens(Long.MAX_VALUE)
                .tokenPeriod(TokenScenario.PERIOD)
                .tokenLimits(scenario.inputLimit, scenario.outputLimit, scenario.combinedLimit);
        List<Replica> replicas = new ArrayList<>();
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            db.reset();
            seeder.pendingOnHold("tokens-" + scenario.key, options.providerBacklog());
            db.settle();
            for (int i = 1; i <= n; i++) {
                String name = "replica-tokens-" + scenario.key + "-" + n + "-" + i;
                progress("starting " + name + " (" + scenario.protocol + " against the stand-in on port "
                        + standIn.port() + ")");
                replicas.add(starter.start(name, Map.of("synthesis.workers", Integer.toString(TokenScenario.WORKERS)),
                        environment(standIn, scenario)));
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

    private static Map<String, String> environment(StandInProvider standIn, TokenScenario scenario) {
        Map<String, String> env = new LinkedHashMap<>(ProviderBound.environment(standIn));
        env.put("LLM_PRIMARY_MODEL", MODELS.get(scenario.protocol)[0]);
        env.put("LLM_ESCALATION_MODEL", MODELS.get(scenario.protocol)[1]);
        return env;
    }

    private void measure(StandInProvider standIn, TokenScenario scenario, List<Replica> replicas) throws Exception {
        int n = replicas.size();
        progress(scenario.describe() + ", " + n + " replica(s): " + options.providerBacklog()
                + " conflicts claimable, " + options.providerWarmUpSeconds() + " s warm-up, then a "
                + options.providerWindowSeconds() + " s window");
        DrainRelease.releaseAll(db);
        long released = System.nanoTime();
        ProviderBound.sleepUntil(released + Duration.ofSeconds(options.providerWarmUpSeconds()).toNanos());

        String primary = MODELS.get(scenario.protocol)[0];
        String primaryModel = primary.substring(primary.indexOf('/') + 1);
        long doneBefore = seeder.count("done");
        double waitsBefore = ProviderBound.sum(replicas, "llm_escalation_waits_total", null);
        double escalationsBefore = ProviderBound.sum(replicas, "llm_escalations_total", null);
        Stats.Snapshot before = standIn.stats();
        long windowStart = System.nanoTime();
        ProviderBound.sleepUntil(windowStart + Duration.ofSeconds(options.providerWindowSeconds()).toNanos());
        Stats.Snapshot after = standIn.stats();
        double seconds = (System.nanoTime() - windowStart) / 1e9;
        long merged = seeder.count("done") - doneBefore;
        double waits = ProviderBound.sum(replicas, "llm_escalation_waits_total", null) - waitsBefore;
        double escalations = ProviderBound.sum(replicas, "llm_escalations_total", null) - escalationsBefore;
        long left = seeder.count("pending");
        if (left == 0) {
            throw new IllegalStateException("the backlog of " + options.providerBacklog() + " ran out during the "
                    + "window, so the rate understates what the replicas could do: give the step a larger backlog");
        }
        long answered = ProviderBound.answered(after) - ProviderBound.answered(before);
        long rateLimited = after.status(429) - before.status(429);
        // Both models' tokens are counted by the stand-in together; the escalation model has buckets of its own,
        // so its share is taken off in proportion to its requests.
        long primaryRequests = after.model(primaryModel) - before.model(primaryModel);
        long allRequests = after.requests() - before.requests();
        double primaryShare = allRequests == 0 ? 1 : primaryRequests / (double) allRequests;
        double counted = scenario.counted(after.inputTokens() - before.inputTokens(),
                after.outputTokens() - before.outputTokens()) * primaryShare;
        double used = counted / seconds / scenario.boundPerSecond();

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
        put(scenario, n, TokenFigure.ESCALATION_WAITS, waits);
        put(scenario, n, TokenFigure.MERGED, merged / seconds);
        results.note("provider_tokens_" + scenario.key + "_" + n + "_replica" + (n == 1 ? "" : "s"),
                merged + " merged in " + ReportTable.format(seconds) + " s; " + ReportTable.format(counted)
                        + " tokens counted against the binding limit (" + ReportTable.format(used * 100)
                        + "% of it), " + ReportTable.format(counted / Math.max(1, primaryRequests))
                        + " per primary request; stand-in in the window: " + answered + " answered, " + rateLimited
                        + " of them 429, " + (after.inputTokens() - before.inputTokens()) + " input and "
                        + (after.outputTokens() - before.outputTokens()) + " output tokens; " + (long) escalations
                        + " escalations, " + (long) waits + " of them waited; whole scenario: "
                        + account.describe());
        progress(scenario.describe() + ", " + n + " replica(s): " + ReportTable.format(used * 100)
                + "% of the binding limit, " + rateLimited + " of " + answered + " requests answered 429, "
                + account.lost() + " attempts lost, " + (long) waits + " of " + (long) escalations
                + " escalations waited");
    }

    private void put(TokenScenario scenario, int replicas, TokenFigure figure, double value) {
        results.put(Metric.tokens(scenario, replicas, figure), value);
    }

    private static void progress(String message) {
        System.err.println("[bench] provider tokens: " + message);
    }
}
