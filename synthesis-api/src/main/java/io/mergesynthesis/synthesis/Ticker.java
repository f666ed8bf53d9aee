package io.mergesynthesis.synthesis;

/**
 * Elapsed time, as {@link java.time.Clock} is the time of day: a count of nanoseconds that only ever moves
 * forward, for deadlines and pauses on this JVM. Passed by constructor wherever such a deadline is reckoned,
 * like the clock, so that a test moves both by hand instead of sleeping. Here rather than in one module because
 * the worker and the LLM client share it: one hand-moved ticker drives both.
 */
@FunctionalInterface
public interface Ticker {

    /** This JVM's monotonic clock: the one place in the service that reads it. */
    Ticker SYSTEM = System::nanoTime;

    /** Nanoseconds from some fixed origin; only the difference between two readings means anything. */
    long nanos();
}
