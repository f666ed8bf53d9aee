package io.mergesynthesis.service.db;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a starting server waits for its database. Replicas often start together with the database, or while it
 * restarts, or while other replicas hold every connection slot; exiting then would leave the restart to an
 * orchestrator that may give up. So a step that needs the database is retried while its failure says the
 * database is unavailable ({@link DatabaseUnavailable}), with a doubling pause, one log line per retry, for at
 * most {@code maxWait} in all. Any other failure, or an unavailable database at the end of the wait, still
 * stops the start with what went wrong.
 */
public final class DatabaseWait {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseWait.class);
    static final Duration FIRST_PAUSE = Duration.ofMillis(250);
    static final Duration LAST_PAUSE = Duration.ofSeconds(5);

    /** Sleeps; tests pass one that only moves their clock. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration pause) throws InterruptedException;
    }

    private final Duration maxWait;
    private final Clock clock;
    private final Sleeper sleeper;

    public DatabaseWait(Duration maxWait, Clock clock, Sleeper sleeper) {
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("the wait for the database cannot be negative, got " + maxWait);
        }
        this.maxWait = maxWait;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** Waits on the system clock, sleeping for real. */
    public static DatabaseWait upTo(Duration maxWait) {
        return new DatabaseWait(maxWait, Clock.systemUTC(), pause -> Thread.sleep(pause.toMillis()));
    }

    /** Runs {@code step} (named in the log as "could not {@code what}"), waiting out an unavailable database. */
    public void run(String what, Runnable step) {
        get(what, () -> {
            step.run();
            return null;
        });
    }

    /** {@link #run} for a step with a result. */
    public <T> T get(String what, Supplier<T> step) {
        Instant start = clock.instant();
        Duration pause = FIRST_PAUSE;
        int failures = 0;
        while (true) {
            try {
                T result = step.get();
                if (failures > 0) {
                    LOG.info("The database is available: could {} after {} failed tries over {}", what, failures,
                            show(Duration.between(start, clock.instant())));
                }
                return result;
            } catch (RuntimeException e) {
                failures++;
                Duration waited = Duration.between(start, clock.instant());
                if (!DatabaseUnavailable.isCauseOf(e)) {
                    throw e;
                }
                if (waited.plus(pause).compareTo(maxWait) > 0) {
                    throw new IllegalStateException("Could not " + what + ": the database was still unavailable "
                            + "after " + show(waited) + " (databaseStartupWait is " + show(maxWait) + "): "
                            + DatabaseUnavailable.describe(e), e);
                }
                LOG.warn("Could not {}, the database is unavailable ({}); trying again in {} (waited {} of {})",
                        what, DatabaseUnavailable.describe(e), show(pause), show(waited), show(maxWait));
                try {
                    sleeper.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the database", interrupted);
                }
                pause = pause.multipliedBy(2).compareTo(LAST_PAUSE) < 0 ? pause.multipliedBy(2) : LAST_PAUSE;
            }
        }
    }

    /** "30s" or "1500ms", as durations are written in config.yml. */
    private static String show(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
