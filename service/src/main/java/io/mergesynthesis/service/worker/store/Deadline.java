package io.mergesynthesis.service.worker.store;

import java.time.Duration;

/**
 * A moment on this JVM's monotonic clock, for how long to keep retrying something: unlike the wall clock it
 * cannot jump, and unlike the injected {@link java.time.Clock} (fixed in tests) it always moves.
 */
public record Deadline(long nanoTime) {

    public static Deadline in(Duration duration) {
        return new Deadline(System.nanoTime() + duration.toNanos());
    }

    /** True when waiting {@code pause} from now still ends before the deadline. */
    public boolean allows(Duration pause) {
        return nanoTime - System.nanoTime() - pause.toNanos() > 0;
    }
}
