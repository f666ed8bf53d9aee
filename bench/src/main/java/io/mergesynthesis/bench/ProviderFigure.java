package io.mergesynthesis.bench;

/**
 * What the provider-bound step reports for each scenario and replica count, and the target each is held to.
 * One replica: at least 95% of the bound (90% of a limit nobody states), at most 2% of requests answered 429, no
 * attempt lost, at most 2 database connections in use on average. Three replicas sharing the provider: at least
 * 90% of the bound.
 */
enum ProviderFigure {
    MERGED("merged_per_s", "merged", "conflicts/s"),
    TO_TARGET("to_bound_ratio", "merged / bound", "ratio"),
    RATE_LIMITED_SHARE("rate_limited_share", "requests answered 429", "share"),
    HAND_BACKS("uncounted_hand_backs", "uncounted hand-backs", "conflicts"),
    ATTEMPTS_LOST("attempts_lost", "attempts lost", "attempts"),
    MEAN_CONNECTIONS("mean_connections", "DB connections, mean", "connections"),
    PEAK_CONNECTIONS("peak_connections", "DB connections, peak", "connections"),
    CONCURRENCY("settled_concurrency", "concurrency at the end", "calls");

    final String key;
    final String label;
    final String unit;

    ProviderFigure(String key, String label, String unit) {
        this.key = key;
        this.label = label;
        this.unit = unit;
    }

    Metric.Target target(ProviderScenario scenario, int replicas) {
        double bound = scenario.bound(replicas);
        String boundText = "min(L, " + replicas * ProviderScenario.WORKERS + " workers / T) = "
                + ReportTable.format(bound) + (scenario.workerBound(replicas) ? ", bound by the workers" : "");
        return switch (this) {
            case MERGED -> Metric.Target.atLeast(scenario.share(replicas) * bound,
                    Math.round(scenario.share(replicas) * 100) + "% of " + boundText);
            case TO_TARGET -> Metric.Target.atLeast(scenario.share(replicas), "the bound: " + boundText);
            case RATE_LIMITED_SHARE -> replicas == 1 ? Metric.Target.atMost(0.02, "of the requests in the window")
                    : Metric.Target.context("no target for 3 replicas");
            case HAND_BACKS -> Metric.Target.context("no target: 429s and waits for a slot, in the window");
            case ATTEMPTS_LOST -> Metric.Target.atMost(0, "counted attempts that merged nothing, whole scenario");
            case MEAN_CONNECTIONS -> replicas == 1 ? Metric.Target.atMost(2, "busy in pg_stat_activity every 10 ms")
                    : Metric.Target.context("the three replicas together");
            case PEAK_CONNECTIONS -> Metric.Target.context(replicas == 1 ? null : "the three replicas together");
            case CONCURRENCY -> Metric.Target.context(replicas == 1 ? "llm_concurrency_limit, AIMD, max 16"
                    : "mean of the three replicas' llm_concurrency_limit");
        };
    }
}
