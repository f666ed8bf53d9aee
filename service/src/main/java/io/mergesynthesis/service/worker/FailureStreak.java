package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.DatabaseUnavailable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Logs the failures of one thing that is retried in a loop (claiming, listening, storing merges) so that a
 * database outage, or a database that keeps running out of connection slots, reads as a few lines rather than
 * one per try. At most one warning per {@link #REPORT_EVERY}: the first failure as it happens (with its stack
 * trace, unless it only says the database is unavailable), then summaries with the count of failures since the
 * last line. When it works again after failures that were reported, one line says so.
 *
 * <p>Safe to share between threads that retry the same thing.
 */
public final class FailureStreak {

    static final Duration REPORT_EVERY = Duration.ofSeconds(30);

    private final Logger log;
    private final String what;
    private final Clock clock;
    /** Failures since the last success. */
    private int failing;
    private Instant failingSince;
    /** Failures not in any line yet. */
    private int unreported;
    private Instant lastReport;
    /** Whether the present run of failures was reported, and so its end should be too. */
    private boolean reported;

    /**
     * @param what names the thing in the log's words, e.g. "Synthesis pool x: claiming"
     */
    public FailureStreak(Logger log, String what, Clock clock) {
        this.log = log;
        this.what = what;
        this.clock = clock;
    }

    /** One more failure; {@code retryIn} is the pause before the next try. */
    public synchronized void failed(Throwable failure, Duration retryIn) {
        Instant now = clock.instant();
        if (failing == 0) {
            failingSince = now;
        }
        failing++;
        unreported++;
        if (lastReport != null && now.isBefore(lastReport.plus(REPORT_EVERY))) {
            return;
        }
        // Failures of earlier runs that ended before they were due a line of their own.
        String earlier = unreported > 1 ? " (" + (unreported - 1) + " more failures since the last report)" : "";
        if (failing > 1) {
            log.warn("{} still failing: {} failed tries over {}, retrying every {} at most; the last: {}", what,
                    failing, approximately(Duration.between(failingSince, now)), approximately(retryIn),
                    DatabaseUnavailable.describe(failure));
        } else if (DatabaseUnavailable.isCauseOf(failure)) {
            log.warn("{} failed, the database is unavailable ({}); retrying in {}{}", what,
                    DatabaseUnavailable.describe(failure), approximately(retryIn), earlier);
        } else {
            log.warn("{} failed; retrying in {}{}", what, approximately(retryIn), earlier, failure);
        }
        unreported = 0;
        lastReport = now;
        reported = true;
    }

    /** It worked; true when that ends a run of failures (logged if the run was). */
    public synchronized boolean succeeded() {
        if (failing == 0) {
            return false;
        }
        if (reported) {
            log.info("{} works again after {} failed tries over {}", what, failing,
                    approximately(Duration.between(failingSince, clock.instant())));
        }
        failing = 0;
        reported = false;
        return true;
    }

    /** "250ms", "2s", "12.3s": short and rounded, for a log line. */
    static String approximately(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + "ms";
        }
        if (millis % 1000 == 0 || millis >= 60_000) {
            return Math.round(millis / 1000.0) + "s";
        }
        return String.format(java.util.Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}
