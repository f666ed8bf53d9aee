package io.mergesynthesis.bench;

/**
 * What the token-bound step reports for each scenario and replica count, measured from the first call, and the
 * target each is held to: at least 95% of what the binding limit allowed, at most 1% of requests answered 429, no
 * attempt lost, no pause between calls longer than the refill of one call's hold; the merges as context.
 */
enum TokenFigure {
    USED("binding_limit_used_ratio", "tokens let in / what the limit allowed", "ratio"),
    RATE_LIMITED_SHARE("rate_limited_share", "requests answered 429", "share"),
    ATTEMPTS_LOST("attempts_lost", "attempts lost", "attempts"),
    LONGEST_GAP("longest_gap_s", "longest gap between calls", "s"),
    MERGED("merged_per_s", "merged", "conflicts/s");

    final String key;
    final String label;
    final String unit;

    TokenFigure(String key, String label, String unit) {
        this.key = key;
        this.label = label;
        this.unit = unit;
    }

    Metric.Target target(TokenScenario scenario) {
        return switch (this) {
            case USED -> Metric.Target.atLeast(0.95, "of the starting level plus the refill over the window");
            case RATE_LIMITED_SHARE -> Metric.Target.atMost(0.01, "of the requests in the window");
            case ATTEMPTS_LOST -> Metric.Target.atMost(0, "counted attempts that merged nothing, whole scenario");
            case LONGEST_GAP -> Metric.Target.atMost(scenario.oneCallsRefill().toMillis() / 1000.0,
                    "the refill of one call's " + ReportTable.format(scenario.oneCallsHold()) + " tokens; "
                            + "work waited throughout the window");
            case MERGED -> Metric.Target.context("bound by the limit, not the workers");
        };
    }
}
