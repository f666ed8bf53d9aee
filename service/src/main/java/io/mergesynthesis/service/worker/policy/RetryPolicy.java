package io.mergesynthesis.service.worker.policy;

import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.worker.FailureReason;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * When a failed attempt is tried again, and when a conflict has had enough: the wait after the Nth failure, the
 * attempt limit, and which failures count towards it. The one place that decides the permanent marker.
 * {@link #cappedExponential} is the product's policy, built from {@code synthesis.baseBackoff} and
 * {@code synthesis.maxAttempts}.
 */
public interface RetryPolicy {

    /** How long a conflict waits after its {@code failedAttempt}th failure (1 for the first). */
    Duration delayAfter(int failedAttempt);

    /** Attempts in all, across replicas, before the marker. */
    int maxAttempts();

    /**
     * Whether a failure counts as an attempt. One that the database cut short does not: nothing is wrong with
     * the conflict.
     */
    boolean counts(FailureReason reason, Throwable failure);

    /** Whether a conflict that has had {@code attemptsMade} attempts gets the marker instead of another try. */
    default boolean exhausted(int attemptsMade) {
        return attemptsMade >= maxAttempts();
    }

    /**
     * {@code min(base * 2^(N-1), base * 10)} between attempts, {@code maxAttempts} in all; a failure of a database
     * step caused by the database being unavailable does not count.
     */
    static RetryPolicy cappedExponential(Duration base, int maxAttempts) {
        Backoff backoff = new Backoff(base);
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("synthesis.maxAttempts must be at least 1, got " + maxAttempts);
        }
        return new RetryPolicy() {
            /** The steps of an attempt that are database work (the router reads an org's model setting). */
            private final Set<FailureReason> databaseSteps = EnumSet.of(FailureReason.SET_ORG_ID,
                    FailureReason.LOAD_ROW, FailureReason.ROUTER_RESOLVE, FailureReason.WRITE_MERGE);

            @Override
            public Duration delayAfter(int failedAttempt) {
                return backoff.after(failedAttempt);
            }

            @Override
            public int maxAttempts() {
                return maxAttempts;
            }

            @Override
            public boolean counts(FailureReason reason, Throwable failure) {
                return !(databaseSteps.contains(reason) && DatabaseUnavailable.isCauseOf(failure));
            }
        };
    }
}
