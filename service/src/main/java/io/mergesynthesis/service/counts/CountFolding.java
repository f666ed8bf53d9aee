package io.mergesynthesis.service.counts;

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.service.worker.FailureStreak;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds the conflict counts every interval, on a thread of its own, in every replica: one replica folds at a time
 * and the others skip their turn, so more replicas fold no more often. A fold that fails (the database away) is
 * logged once per streak and tried at the next interval; until then reads sum a few more rows, and stay exact.
 */
public final class CountFolding implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(CountFolding.class);

    private final ConflictCountUpkeep upkeep;
    private final Duration interval;
    private final FailureStreak failures;
    private ScheduledExecutorService schedule;

    public CountFolding(ConflictCountUpkeep upkeep, Duration interval, Clock clock) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("countFoldInterval must be longer than zero, got " + interval);
        }
        this.upkeep = upkeep;
        this.interval = interval;
        this.failures = new FailureStreak(LOG, "Folding the conflict counts", clock);
    }

    @Override
    public synchronized void start() {
        schedule = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "count-folding");
            thread.setDaemon(true);
            return thread;
        });
        schedule.scheduleWithFixedDelay(this::foldOrLog, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() throws InterruptedException {
        if (schedule != null) {
            schedule.shutdownNow();
            schedule.awaitTermination(interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void foldOrLog() {
        try {
            upkeep.fold();
            failures.succeeded();
        } catch (RuntimeException e) {
            failures.failed(e, interval);
        }
    }
}
