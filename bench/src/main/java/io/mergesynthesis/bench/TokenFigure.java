package io.mergesynthesis.bench;

/**
 * What the token-bound step reports for each scenario and replica count, and the target each is held to: at least
 * 95% of the binding limit used, at most 1% of requests answered 429, no attempt lost; the escalations that waited
 * for their model, and the merges, as context.
 */
enum TokenFigure {
    USED("binding_limit_used_ratio", "tokens counted / binding limit", "ratio"),
    RATE_LIMITED_SHARE("rate_limited_share", "requests answered 429", "share"),
    ATTEMPTS_LOST("attempts_lost", "attempts lost", "attempts"),
    ESCALATION_WAITS("escalation_waits", "escalations that waited", "escalations"),
    MERGED("merged_per_s", "merged", "conflicts/s");

    final String key;
    final String label;
    final String unit;

    TokenFigure(String key, String label, String unit) {
        this.key = key;
        this.label = label;
        this.unit = unit;
    }

    Metric.Target target() {
        return switch (this) {
            case USED -> Metric.Target.atLeast(0.95, "of the binding limit's tokens per second, in the window");
            case RATE_LIMITED_SHARE -> Metric.Target.atMost(0.01, "of the requests in the window");
            case ATTEMPTS_LOST -> Metric.Target.atMost(0, "counted attempts that merged nothing, whole scenario");
            case ESCALATION_WAITS -> Metric.Target.context("llm_escalation_waits_total in the window, of "
                    + "llm_escalations_total");
            case MERGED -> Metric.Target.context("bound by the limit, not the workers");
        };
    }
}
