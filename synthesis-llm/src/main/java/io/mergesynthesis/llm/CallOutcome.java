package io.mergesynthesis.llm;

/**
 * The {@code outcome} label of {@code llm_calls_total}. The set is part of the metrics contract, so every
 * other error status (a refused key, a bad request) counts as {@code server_error}: the provider answered,
 * and not with a merge. A connection that failed before any answer counts as {@code timeout}.
 */
enum CallOutcome {
    OK("ok"),
    RATE_LIMITED("rate_limited"),
    OVERLOADED("overloaded"),
    SERVER_ERROR("server_error"),
    TIMEOUT("timeout"),
    INVALID_OUTPUT("invalid_output");

    private final String label;

    CallOutcome(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}
