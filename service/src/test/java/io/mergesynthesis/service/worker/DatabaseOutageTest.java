package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.mergesynthesis.service.worker.config.WorkerWiring;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.Lease;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pool when the database goes away under it: work cut short by the database is not counted against the
 * conflict, a finished merge waits for the database instead of being thrown away, claiming resumes within
 * seconds of the database's return whatever the poll interval, and the log stays short.
 */
class DatabaseOutageTest {

    private static final Duration NEVER_POLLS = Duration.ofMinutes(10);

    /** A pool on flaky connections, with metrics of its own; stopped by the caller. */
    private record FlakyReplica(SynthesisPool pool, CollectorRegistry registry) {

        double attempts(Outcome outcome) {
            Double value = registry.getSampleValue("synthesis_attempts_total", new String[] {"outcome"},
                    new String[] {outcome.label()});
            return value == null ? 0 : value;
        }

        double failures(FailureReason reason) {
            Double value = registry.getSampleValue("synthesis_failures_total", new String[] {"reason"},
                    new String[] {reason.label()});
            return value == null ? 0 : value;
        }
    }

    private static FlakyReplica replica(FlakyConnections connections, WorkerFixture.Settings settings,
                                        CountingSynthesizer synthesizer) {
        CollectorRegistry registry = new CollectorRegistry(true);
        SynthesisPool pool = WorkerWiring.pool(settings.build(), connections.transactions(), synthesizer,
                new StubRouter(), new SynthesisMetrics(registry)).clock(WorkerFixture.FIXED).build();
        return new FlakyReplica(pool, registry);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readsRefusedByTheDatabaseDoNotCountAsAttempts() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            FlakyConnections connections = new FlakyConnections(fixture.database);
            // The claim gets through; the read-ahead, the worker's own read and the completer's first two tries to
            // hand the lease back are refused. With a single attempt allowed, counting any of that would mark the
            // conflict.
            connections.refuseNext(4, "-reader", "-worker-", "-completer-");
            UUID id = fixture.insertConflict("jira.create_issue");
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            FlakyReplica replica = replica(connections, WorkerFixture.settings("refused-reads").maxAttempts(1),
                    calls);
            replica.pool().start();
            try {
                Wait.until("the merge", Duration.ofSeconds(30),
                        () -> "done".equals(fixture.column(id, "synthesis_state")));
            } finally {
                replica.pool().stop();
            }

            assertThat(connections.refused()).isEqualTo(4);
            assertThat(fixture.column(id, "failure_marker")).isNull();
            assertThat(fixture.column(id, "attempts")).as("the refused attempt was taken back").isEqualTo("1");
            assertThat(calls.callsFor(id)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.SUCCESS)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.PERMANENT_FAILURE)).isZero();
            assertThat(replica.failures(FailureReason.SET_ORG_ID)).isEqualTo(1);
            assertThat(fixture.events("synthesis_failed_permanently")).isZero();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aFinishedMergeWaitsForTheDatabaseWithinItsLease() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            FlakyConnections connections = new FlakyConnections(fixture.database);
            // The store is refused five times: about 1.7 s of retries, well within the 10 s lease.
            connections.refuseNext(5, "-completer-");
            UUID id = fixture.insertConflict("jira.create_issue");
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            FlakyReplica replica = replica(connections, WorkerFixture.settings("refused-store"), calls);
            replica.pool().start();
            try {
                Wait.until("the merge", Duration.ofSeconds(30),
                        () -> "done".equals(fixture.column(id, "synthesis_state")));
            } finally {
                replica.pool().stop();
            }

            assertThat(connections.refused()).isEqualTo(5);
            assertThat(calls.callsFor(id)).as("the synthesizer was not asked twice").isEqualTo(1);
            assertThat(fixture.column(id, "attempts")).isEqualTo("1");
            assertThat(replica.attempts(Outcome.SUCCESS)).isEqualTo(1);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isZero();
            assertThat(replica.failures(FailureReason.WRITE_MERGE)).isZero();
            assertThat(fixture.events("merge_synthesized")).isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void claimingResumesWithinSecondsOfTheDatabaseComingBackAndLogsTheOutageOnce() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture(); CapturedLog logged = CapturedLog.of(SynthesisPool.class)) {
            FlakyConnections connections = new FlakyConnections(fixture.database);
            // Due in a second: the idle loop wakes for it by itself, with no poll and no notification.
            UUID id = fixture.insertConflict("jira.create_issue");
            fixture.admin.useHandle(handle -> handle.createUpdate(
                    "UPDATE policy_conflicts SET not_before = now() + interval '1 second' WHERE id = :id")
                    .bind("id", id).execute());
            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            FlakyReplica replica = replica(connections,
                    WorkerFixture.settings("outage").pollInterval(NEVER_POLLS), calls);
            replica.pool().start();
            try {
                connections.down();
                Wait.until("claims refused for a while", Duration.ofSeconds(20),
                        () -> connections.refused() >= 5);
                connections.up();
                long back = System.nanoTime();
                Wait.until("the merge after the outage", Duration.ofSeconds(10),
                        () -> "done".equals(fixture.column(id, "synthesis_state")));
                // The loop pauses at most two seconds between failed claims; allow for slow shared machines.
                assertThat(Duration.ofNanos(System.nanoTime() - back)).isLessThan(Duration.ofSeconds(8));
                assertThat(replica.pool().problem()).isEmpty();
            } finally {
                replica.pool().stop();
            }

            // Only this pool's lines: a pool another test class left running in this JVM logs to the same logger.
            List<ILoggingEvent> warnings = logged.at(Level.WARN).stream()
                    .filter(event -> event.getFormattedMessage().startsWith("Synthesis pool outage")).toList();
            assertThat(warnings).as("one warning for the whole outage").hasSize(1);
            assertThat(warnings.get(0).getFormattedMessage()).contains("the database is unavailable");
            assertThat(warnings.get(0).getThrowableProxy()).as("no stack trace for a database that is away").isNull();
            assertThat(logged.count("Synthesis pool outage: claiming works again")).isEqualTo(1);
            assertThat(calls.callsFor(id)).isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseCutByADatabaseRestartIsNotHeldAgainstItsConflict() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            // Two conflicts on their one allowed attempt, whose holders never came back. The lease of the first
            // was granted before the database server last started: a restart ended it. The second's was granted
            // since: only a crash of its holder explains it.
            UUID cutByRestart = fixture.insertConflict("jira.restart");
            UUID crashed = fixture.insertConflict("jira.crash");
            fixture.admin.useHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                            SET synthesis_state = 'in_progress', attempts = 1, lease_owner = 'gone',
                                lease_expires_at = now() - interval '1 second',
                                not_before = now() - interval '1 second',
                                updated_at = CASE WHEN id = :cut THEN pg_postmaster_start_time() - interval '1 minute'
                                                  ELSE now() END
                            WHERE id IN (:cut, :crashed)""")
                    .bind("cut", cutByRestart).bind("crashed", crashed).execute());

            CountingSynthesizer calls = new CountingSynthesizer(WorkerFixture.stub());
            WorkerFixture.Replica replica = fixture.replica(WorkerFixture.settings("rescuer").maxAttempts(1), calls);
            replica.pool().start();
            Wait.until("both settled", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(cutByRestart, "synthesis_state"))
                            && "max_attempts_exceeded".equals(fixture.column(crashed, "synthesis_state")));

            assertThat(calls.callsFor(cutByRestart)).isEqualTo(1);
            assertThat(calls.callsFor(crashed)).as("a crash counts, as before").isZero();
            assertThat(fixture.column(crashed, "last_failure_reason")).isEqualTo("max_attempts_exceeded");
        }
    }

    @Test
    void theClaimTellsALeaseCutByARestartFromOneEndedSince() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID before = fixture.insertConflict("jira.before");
            UUID since = fixture.insertConflict("jira.since");
            UUID pending = fixture.insertConflict("jira.pending");
            fixture.admin.useHandle(handle -> handle.createUpdate("""
                            UPDATE policy_conflicts
                            SET synthesis_state = 'in_progress', attempts = 1, lease_owner = 'gone',
                                lease_expires_at = now() - interval '1 second',
                                not_before = now() - interval '1 second',
                                updated_at = CASE WHEN id = :before
                                                  THEN pg_postmaster_start_time() - interval '1 second'
                                                  ELSE now() END
                            WHERE id IN (:before, :since)""")
                    .bind("before", before).bind("since", since).execute());
            // A pending row last touched before the restart was never leased across it.
            fixture.admin.useHandle(handle -> handle.createUpdate(
                    "UPDATE policy_conflicts SET updated_at = pg_postmaster_start_time() - interval '1 hour' "
                            + "WHERE id = :id").bind("id", pending).execute());

            List<Lease> claimed = fixture.database.transactions().crossTenant(
                    handle -> ConflictLeases.claim(handle, "claimer", 10, Duration.ofSeconds(10), Ticker.SYSTEM));

            assertThat(claimed).hasSize(3);
            assertThat(claimed).filteredOn(Lease::cutByRestart).extracting(Lease::conflictId)
                    .containsExactly(before);
            assertThat(claimed).filteredOn(Lease::recovered).extracting(Lease::conflictId)
                    .containsExactlyInAnyOrder(before, since);
        }
    }
}
