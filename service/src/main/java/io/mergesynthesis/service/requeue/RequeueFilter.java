package io.mergesynthesis.service.requeue;

import io.mergesynthesis.service.worker.FailureReason;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Which marked conflicts a bulk re-queue takes: those of one org, those whose last failure reason is one of the
 * eight, or both. At least one is required, so that re-queueing every marked conflict of every org is never what
 * an empty or mistyped request does.
 *
 * @param orgId         null for every org
 * @param failureReason null for any reason
 */
public record RequeueFilter(UUID orgId, String failureReason) {

    /** The values {@code failure_reason} may take: the eight failure reasons. */
    public static final List<String> FAILURE_REASONS = Arrays.stream(FailureReason.values())
            .map(FailureReason::label).toList();

    public RequeueFilter {
        if (orgId == null && failureReason == null) {
            throw new IllegalArgumentException("name an org, a failure reason or both");
        }
        if (failureReason != null && !FAILURE_REASONS.contains(failureReason)) {
            throw new IllegalArgumentException("failure reason must be one of " + String.join(", ", FAILURE_REASONS)
                    + " (got \"" + failureReason + "\")");
        }
    }
}
