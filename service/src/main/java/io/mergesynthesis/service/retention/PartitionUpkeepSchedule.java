package io.mergesynthesis.service.retention;

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.service.core.MonthPartition;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the partitions' upkeep when the replica starts and then every interval (a day by default), on a thread of
 * its own. Every replica runs it; the upkeep's lock lets one at a time do the work, and a replica that finds the
 * partitions made and the old months gone does nothing. A run that fails (the database away, a lock not had in
 * time, a login role that may not change the schema) is logged and tried at the next turn: a write never waits on
 * it, as a row with no month partition lands in the DEFAULT partition.
 */
public final class PartitionUpkeepSchedule implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionUpkeepSchedule.class);

    private final PartitionUpkeep upkeep;
    private final Duration interval;
    private ScheduledExecutorService schedule;

    public PartitionUpkeepSchedule(PartitionUpkeep upkeep, Duration interval) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("retention.upkeepInterval must be longer than zero, got " + interval);
        }
        this.upkeep = upkeep;
        this.interval = interval;
    }

    @Override
    public synchronized void start() {
        schedule = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "partition-upkeep");
            thread.setDaemon(true);
            return thread;
        });
        schedule.scheduleWithFixedDelay(this::runOrLog, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() throws InterruptedException {
        if (schedule != null) {
            schedule.shutdownNow();
            schedule.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private void runOrLog() {
        try {
            PartitionUpkeep.Outcome outcome = upkeep.run();
            if (!outcome.created().isEmpty()) {
                LOG.info("Made monthly partitions {}", outcome.created());
            }
            for (MonthPartition dropped : outcome.dropped()) {
                LOG.info("Dropped {} ({}, {} bytes): its month is past the retention", dropped.name(),
                        dropped.month(), dropped.bytes());
            }
        } catch (RuntimeException e) {
            LOG.warn("The monthly partitions' upkeep failed; it runs again in {}: {}", interval, e.toString());
        }
    }
}
