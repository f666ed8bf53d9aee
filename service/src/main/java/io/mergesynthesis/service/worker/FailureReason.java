package io.mergesynthesis.service.worker;

import java.util.Locale;

/**
 * Why one attempt at a conflict failed: the eight values of the {@code reason} label and of
 * {@code policy_conflicts.last_failure_reason}. {@link #of(Throwable)} is the one place that turns whatever
 * went wrong into a reason.
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

    /**
     * The reason for a failure. Each step of an attempt tags what it throws with the reason it stands for
     * ({@link AttemptFailure}); anything untagged escaped from the worker's own code and is {@link #UNKNOWN}.
     */
    public static FailureReason of(Throwable failure) {
        return failure instanceof AttemptFailure tagged ? tagged.reason() : UNKNOWN;
    }
}
