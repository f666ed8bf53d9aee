package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;

/**
 * PostgreSQL goes away for ten seconds while three replicas are busy, then comes back on the same port and data.
 * The replicas must ride it out on their own: stay alive with every worker thread, report the database
 * unhealthy while it is gone and healthy again after, pick the work up within seconds of its return, lose and
 * duplicate nothing, never stamp the max-attempts marker because the database was away, and not flood their
 * logs meanwhile.
 *
 * <p>Leases are short (4 s) so that every lease held when the database stops has expired by the time it
 * returns: the drill covers work cut off in every phase (claimed, in the synthesizer, waiting to be stored).
 * Each conflict gets a single attempt, so that one database error counted against a conflict shows up as a
 * marker.
 */
@Tag("drill")
class DatabaseRestartDrill {

    private static final String NAME = "database-restart";
    private static final int REPLICAS = 3;
    private static final int WORKERS = 4;
    private static final int CONFLICTS = 600;
    private static final int BATCH = 50;
    private static final Duration LATENCY = Duration.ofMillis(250);
    private static final Duration OUTAGE = Duration.ofSeconds(10);
    /** The spec asks for work to resume "within a few seconds"; bounded generously for shared, noisy cores. */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(15);
    /** Warnings and errors one replica may log from the stop to the end of the drain. */
    private static final int LOG_WARNINGS_BOUND = 20;
    /** Stack trace lines one replica may log over the same stretch: no more than one trace. */
    private static final int STACK_TRACE_LINES_BOUND = 50;
    /** Lines of the listener's, over the same stretch: lost, perhaps a summary, back; not one per reconnect. */
    private static final int LISTENER_LINES_BOUND = 3;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void replicasRideOutADatabaseRestart() throws Exception {
        DrillReport report = new DrillReport(NAME);
        try (DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
            Map<String, String> settings = new LinkedHashMap<>(calls.setting());
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            settings.put("synthesis.invokeTimeout", "2s");
            settings.put("synthesis.leaseDuration", "4s");
            // One attempt each: a database error counted as a synthesizer attempt would leave a marker behind.
            settings.put("synthesis.maxAttempts", "1");
            settings.put("synthesis.shutdownGrace", "5s");
            settings.put("synthesis.faults.latency", LATENCY.toMillis() + "ms");
            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings));
            }
            report.line(REPLICAS + " replicas x " + WORKERS + " workers, " + CONFLICTS + " conflicts, synthesizer "
                    + "latency " + LATENCY.toMillis() + " ms, lease 4 s, invoke timeout 2 s, outage "
                    + OUTAGE.toSeconds() + " s");
            try {
                replicas.forEach(Replica::launch);
                for (Replica replica : replicas) {
                    replica.awaitHealthy(Duration.ofSeconds(120));
                }
                ingest(database, replicas);
                report.line("ingested " + CONFLICTS + " conflicts over HTTP");

                Wait.until("a fifth of the conflicts merged", Duration.ofSeconds(60),
                        () -> done(database) >= CONFLICTS / 5);
                Map<Replica, Long> marks = new LinkedHashMap<>();
                replicas.forEach(replica -> marks.put(replica, replica.logMark()));
                long doneAtStop = done(database);
                long inProgressAtStop = database.count(
                        "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'in_progress'");
                String inboxToken = ApiClient.mintToken(database, "org_admin", UUID.randomUUID());
                database.stop();
                long stopped = System.nanoTime();
                // A client asking meanwhile is told to come back (503, Retry-After), not that the service broke.
                Wait.until("every replica to find the database gone", Duration.ofSeconds(30),
                        () -> replicas.stream().allMatch(replica -> replica.healthStatus() != 200));
                List<String> apiDuringOutage = new ArrayList<>();
                for (Replica replica : replicas) {
                    HttpResponse<String> answer = ApiClient.get(replica.api("/v1/conflicts"), inboxToken);
                    apiDuringOutage.add(answer.statusCode() + " Retry-After="
                            + answer.headers().firstValue("Retry-After").orElse("none"));
                }
                report.line("database stopped with " + doneAtStop + " merged, " + inProgressAtStop
                        + " leased, " + (CONFLICTS - doneAtStop) + " to go");
                assertThat(CONFLICTS - doneAtStop).as("work left for after the restart")
                        .isGreaterThan((long) REPLICAS * WORKERS);

                report.figure("inbox reads during the outage", apiDuringOutage);
                Map<Replica, List<Replica.Health>> duringOutage = sampleHealth(replicas, stopped, OUTAGE);
                database.startServer();
                long restarted = System.nanoTime();
                report.line("database started again after " + seconds(restarted - stopped) + " s");

                Map<Replica, Duration> healthyAfter = new LinkedHashMap<>();
                long[] firstMergeSeenAt = {-1};
                Wait.holdsWithin("every replica healthy and a merge after the restart", Duration.ofSeconds(60),
                        () -> {
                            for (Replica replica : replicas) {
                                if (!healthyAfter.containsKey(replica) && replica.healthStatus() == 200) {
                                    healthyAfter.put(replica, Duration.ofNanos(System.nanoTime() - restarted));
                                }
                            }
                            if (firstMergeSeenAt[0] < 0 && mergedSinceRestart(database) > 0) {
                                firstMergeSeenAt[0] = System.nanoTime();
                            }
                            return healthyAfter.size() == REPLICAS && firstMergeSeenAt[0] >= 0;
                        });
                long firstMergeSeen = firstMergeSeenAt[0];
                Double firstMergeByDatabase = firstMergeAfterServerStart(database);
                report.figure("first merge stored after the restart (by the database clock, from server start)",
                        firstMergeByDatabase == null ? "none" : String.format("%.2f s", firstMergeByDatabase));
                report.figure("first merge seen by the drill after the restart",
                        firstMergeSeen < 0 ? "none" : seconds(firstMergeSeen - restarted) + " s");
                healthyAfter.forEach((replica, after) -> report.figure(replica.name() + " healthy again after",
                        String.format("%.2f s", after.toMillis() / 1000.0)));

                Wait.holdsWithin("every conflict merged after the restart", Duration.ofSeconds(90),
                        () -> done(database) >= CONFLICTS);
                report.figure("drained after the restart in", seconds(System.nanoTime() - restarted) + " s");

                List<LogExcerpt> logs = new ArrayList<>();
                replicas.forEach(replica -> logs.add(new LogExcerpt(replica.name(),
                        replica.logSince(marks.get(replica)))));
                logs.forEach(log -> report.line("log from the stop to the end of the drain, " + log.summary(12)));
                reportOutcome(report, database, calls);
                Map<Replica, List<Replica.Health>> afterDrain = sampleHealth(replicas, System.nanoTime(),
                        Duration.ofSeconds(1));

                // The process and every worker thread lived through it.
                for (Replica replica : replicas) {
                    assertThat(replica.isAlive()).as(replica.name() + " is alive").isTrue();
                    assertThat(duringOutage.get(replica)).as(replica.name() + ": synthesis-pool during the outage")
                            .allMatch(health -> health.healthy("synthesis-pool"));
                    assertThat(afterDrain.get(replica)).as(replica.name() + ": health after the drain")
                            .allMatch(health -> health.status() == 200 && health.healthy("synthesis-pool"));
                    assertThat(replica.logSinceStart()).as(replica.name() + ": a worker died")
                            .doesNotContain("failed outside any attempt");
                }
                // Health said the database was gone, from a moment after the stop until the restart.
                for (Replica replica : replicas) {
                    assertThat(duringOutage.get(replica)).as(replica.name() + ": /healthcheck during the outage")
                            .isNotEmpty()
                            .allMatch(health -> health.status() != 200 && !health.healthy("postgresql"));
                }
                assertThat(apiDuringOutage).as("inbox reads during the outage")
                        .allMatch(answer -> answer.equals("503 Retry-After=5"));
                // Work came back by itself, promptly.
                assertThat(healthyAfter).as("replicas healthy again within " + RESUME_BOUND.toSeconds() + " s")
                        .hasSize(REPLICAS)
                        .allSatisfy((replica, after) -> assertThat(after).isLessThanOrEqualTo(RESUME_BOUND));
                assertThat(firstMergeSeen).as("a merge stored after the restart").isPositive();
                assertThat(Duration.ofNanos(firstMergeSeen - restarted)).as("time to the first merge")
                        .isLessThanOrEqualTo(RESUME_BOUND);
                // Nothing lost, nothing doubled, nothing marked because of the database.
                assertThat(done(database)).as("conflicts merged").isEqualTo(CONFLICTS);
                assertThat(database.count("SELECT count(*) FROM policy_conflicts WHERE failure_marker IS NOT NULL"))
                        .as("conflicts stamped synthesis_max_attempts_exceeded").isZero();
                assertThat(database.count("SELECT count(*) FROM conflict_events WHERE event_type = "
                        + "'merge_synthesized'")).as("merge_synthesized events").isEqualTo(CONFLICTS);
                assertThat(database.count("SELECT count(DISTINCT conflict_id) FROM conflict_events WHERE "
                        + "event_type = 'merge_synthesized'")).as("conflicts with a merge event").isEqualTo(CONFLICTS);
                assertThat(calls.callsPerConflict()).as("synthesizer calls per conflict")
                        .hasSize(CONFLICTS)
                        .allSatisfy((conflict, count) -> assertThat(count).isBetween(1, 2));
                // The logs stayed readable.
                for (LogExcerpt log : logs) {
                    assertThat(log.warningsAndErrors()).as(log.replica() + ": warnings and errors after the stop")
                            .hasSizeLessThanOrEqualTo(LOG_WARNINGS_BOUND);
                    assertThat(log.stackTraceLines()).as(log.replica() + ": stack trace lines after the stop")
                            .isLessThanOrEqualTo(STACK_TRACE_LINES_BOUND);
                    assertThat(log.count("PendingListener")).as(log.replica() + ": listener lines after the stop")
                            .isLessThanOrEqualTo(LISTENER_LINES_BOUND);
                }
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    private static void ingest(DrillDatabase database, List<Replica> replicas) throws Exception {
        String platform = ApiClient.mintToken(database, "platform", null);
        List<UUID> orgs = List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
        for (int start = 0; start < CONFLICTS; start += BATCH) {
            List<String> items = new ArrayList<>();
            for (int n = start; n < start + BATCH; n++) {
                items.add(ApiClient.conflictJson(orgs.get(n % orgs.size()), "jira.create_issue", n));
            }
            Replica replica = replicas.get(start / BATCH % replicas.size());
            HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), platform,
                    "{\"conflicts\": [" + String.join(",", items) + "]}");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        }
    }

    /**
     * Each replica's health every half second for {@code span}, leaving out the first second after {@code from}.
     * The samples are taken over the outage's real length, as a prober would see them each half second, so a
     * schedule at that rate takes them; the outage lasts until it has run its span.
     */
    private static Map<Replica, List<Replica.Health>> sampleHealth(List<Replica> replicas, long from, Duration span)
            throws InterruptedException {
        Map<Replica, List<Replica.Health>> samples = new LinkedHashMap<>();
        replicas.forEach(replica -> samples.put(replica, new ArrayList<>()));
        long settle = from + Duration.ofSeconds(1).toNanos();
        long end = from + span.toNanos();
        CountDownLatch over = new CountDownLatch(1);
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor();
        try {
            prober.scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                if (now >= end) {
                    over.countDown();
                    throw new CancellationException("the span is over"); // ends the schedule
                }
                if (now >= settle) {
                    try {
                        for (Replica replica : replicas) {
                            samples.get(replica).add(replica.health());
                        }
                    } catch (RuntimeException e) {
                        failure.set(e);
                        over.countDown();
                        throw e;
                    }
                }
            }, 0, 500, TimeUnit.MILLISECONDS);
            Wait.forLatch("health samples over " + span.toMillis() + " ms", span.plusSeconds(30), over);
            if (failure.get() != null) {
                throw failure.get();
            }
        } finally {
            prober.shutdownNow();
            prober.awaitTermination(10, TimeUnit.SECONDS);
        }
        return samples;
    }

    private static void reportOutcome(DrillReport report, DrillDatabase database, CallLog calls) {
        report.figure("merged", done(database));
        report.figure("stamped synthesis_max_attempts_exceeded",
                database.count("SELECT count(*) FROM policy_conflicts WHERE failure_marker IS NOT NULL"));
        report.figure("merge_synthesized events",
                database.count("SELECT count(*) FROM conflict_events WHERE event_type = 'merge_synthesized'"));
        report.figure("synthesizer calls", calls.calls());
        report.figure("conflicts synthesized twice", calls.callsPerConflict().values().stream()
                .filter(count -> count > 1).count());
        report.figure("durable attempts per conflict, max",
                database.count("SELECT coalesce(max(attempts), 0) FROM policy_conflicts"));
    }

    private static long done(DrillDatabase database) {
        return database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'");
    }

    private static long mergedSinceRestart(DrillDatabase database) {
        return database.count(
                "SELECT count(*) FROM policy_conflicts WHERE synthesized_at > pg_postmaster_start_time()");
    }

    /** Seconds from the server's start to the first merge stored after it, by the database's own clock. */
    private static Double firstMergeAfterServerStart(DrillDatabase database) {
        long micros = database.count("SELECT coalesce((extract(epoch FROM min(synthesized_at) "
                + "- pg_postmaster_start_time()) * 1000000)::bigint, -1) FROM policy_conflicts "
                + "WHERE synthesized_at > pg_postmaster_start_time()");
        return micros < 0 ? null : micros / 1e6;
    }


    private static String seconds(long nanos) {
        return String.format("%.2f", nanos / 1e9);
    }
}
