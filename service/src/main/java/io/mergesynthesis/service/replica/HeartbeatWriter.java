package io.mergesynthesis.service.replica;

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.service.core.ReplicaBeat;
import io.mergesynthesis.service.db.ReplicaHeartbeats;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.FailureStreak;
import io.mergesynthesis.synthesis.ProviderState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this replica's heartbeat row every interval (docs/adr/0041), on a thread of its own and one short
 * transaction of the service's pool per beat, so that no worker waits on it. A beat that fails (the database away)
 * is logged once per streak and simply tried at the next interval. Stopping in order writes a last beat that
 * marks the row stopped; a replica that dies writes nothing, and others see it go silent.
 */
public final class HeartbeatWriter implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatWriter.class);

    private final ScopedTransactions transactions;
    private final ReplicaReadings readings;
    private final String host;
    private final String version;
    private final Duration interval;
    private final Clock clock;
    private final FailureStreak failures;
    private volatile Instant startedAt;
    private ScheduledExecutorService schedule;

    public HeartbeatWriter(ScopedTransactions transactions, ReplicaReadings readings, String host, String version,
                           Duration interval, Clock clock) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("heartbeatInterval must be longer than zero, got " + interval);
        }
        this.transactions = transactions;
        this.readings = readings;
        this.host = host;
        this.version = version;
        this.interval = interval;
        this.clock = clock;
        this.failures = new FailureStreak(LOG, "Heartbeat of replica " + readings.replicaId(), clock);
    }

    @Override
    public synchronized void start() {
        startedAt = clock.instant();
        schedule = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "heartbeat-" + readings.replicaId());
            thread.setDaemon(true);
            return thread;
        });
        schedule.scheduleWithFixedDelay(this::beatOrLog, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() throws InterruptedException {
        if (schedule != null) {
            schedule.shutdownNow();
            schedule.awaitTermination(interval.toMillis(), TimeUnit.MILLISECONDS);
        }
        try {
            write(clock.instant());
        } catch (RuntimeException e) {
            LOG.warn("Replica {} could not mark its heartbeat stopped; it will read as gone after {} intervals: {}",
                    readings.replicaId(), 3, e.toString());
        }
    }

    /** Writes one beat now; the schedule calls it every interval, tests may call it by hand. */
    public void beat() {
        write(null);
    }

    private void beatOrLog() {
        try {
            beat();
            failures.succeeded();
        } catch (RuntimeException e) {
            failures.failed(e, interval);
        }
    }

    private void write(Instant stoppedAt) {
        Instant now = clock.instant();
        if (startedAt == null) {
            startedAt = now;
        }
        List<ReplicaBeat.Provider> providers = readings.providers().stream().map(HeartbeatWriter::provider).toList();
        ReplicaBeat beat = new ReplicaBeat(readings.replicaId(), host, version, startedAt, interval,
                readings.workers(), readings.inFlight(), readings.lastClaim(), now, stoppedAt, providers);
        transactions.crossTenant(handle -> {
            ReplicaHeartbeats.beat(handle, beat);
            return null;
        });
    }

    private static ReplicaBeat.Provider provider(ProviderState state) {
        return new ReplicaBeat.Provider(state.circuit().provider(), state.circuit().open(), state.circuit().detail(),
                state.concurrencyLimit(), state.requestsPerSecond());
    }
}
