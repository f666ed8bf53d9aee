package io.mergesynthesis.service.worker.store;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;

/**
 * A moment on the worker's {@link Ticker}, for how long to keep retrying something: unlike the wall clock it
 * cannot jump, and unlike the injected {@link java.time.Clock} (fixed in tests) it moves in production; a test
 * moves it by hand.
 */
public record Deadline(long nanos, Ticker ticker) {

    public static Deadline in(Duration duration, Ticker ticker) {
        return new Deadline(ticker.nanos() + duration.toNanos(), ticker);
    }

    /** True when waiting {@code pause} from now still ends before the deadline. */
    public boolean allows(Duration pause) {
        return nanos - ticker.nanos() - pause.toNanos() > 0;
    }
}
