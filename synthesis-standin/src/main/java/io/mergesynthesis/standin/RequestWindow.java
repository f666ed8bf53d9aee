package io.mergesynthesis.standin;

import java.time.Duration;
import java.time.Instant;

/**
 * The stand-in's request limit: one fixed window (a second unless told otherwise) shared by every caller, so that
 * replicas pointed at one stand-in share one limit as they would share an account's limit at a real provider. A
 * window opens with the first request after the previous one ended.
 */
final class RequestWindow {

    static final Duration DEFAULT_LENGTH = Duration.ofSeconds(1);

    private long openedNanos;
    private Instant resetsAt;
    private int admitted;

    /** Counts one request against {@code limit} requests a window of {@code length}. */
    synchronized Admission admit(int limit, Duration length) {
        long now = System.nanoTime();
        if (resetsAt == null || now - openedNanos >= length.toNanos()) {
            openedNanos = now;
            resetsAt = Instant.now().plus(length);
            admitted = 0;
        }
        if (admitted >= limit) {
            return new Admission(false, limit, 0, resetsAt);
        }
        admitted++;
        return new Admission(true, limit, limit - admitted, resetsAt);
    }
}
