package io.mergesynthesis.service.worker;

import java.util.Locale;

/**
 * Why one attempt at a conflict failed: the eight values of the {@code reason} label and of
 * {@code policy_conflicts.last_failure_reason}. {@code AttemptFailure.reasonOf} is the one place that turns
 * whatever went wrong into a reason.
 */
public enum FailureReason {
    SET_ORG_ID,
    LOAD_ROW,
    ROUTER_RESOLVE,
    SYNTHESIZER,
    INVALID_JSON,
    WRITE_MERGE,
    MAX_ATTEMPTS_EXCEEDED,
    UNKNOWN;

    /** The name in metrics and in the database. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
