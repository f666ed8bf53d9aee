package io.mergesynthesis.service.worker.attempt;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.worker.FailureReason;

/**
 * The details of a "synthesis failed permanently" event, written alike by either lane: what a security team needs
 * to read the event on its own.
 */
public final class GivenUpEvent {

    private static final ObjectMapper JSON = new ObjectMapper();

    private GivenUpEvent() {
    }

    public static String details(int attempt, int maxAttempts, FailureReason reason) {
        return JSON.createObjectNode()
                .put("attempts", attempt)
                .put("max_attempts", maxAttempts)
                .put("last_failure_reason", reason.label())
                .toString();
    }
}
