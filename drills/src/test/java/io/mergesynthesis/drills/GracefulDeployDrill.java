package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.testsupport.Wait;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;

/**
 * A rolling deploy under load. Three replicas work on slow calls while conflicts keep arriving; each replica in
 * turn gets SIGTERM, and its replacement starts once it has exited. A graceful stop must lose and repeat
 * nothing: the stopping process exits within its shutdown grace, every call it had started ends and is stored,
 * the leases of conflicts it had claimed but not started are handed back before it exits, and over the whole
 * deploy every conflict is synthesized exactly once.
 */
@Tag("drill")
class GracefulDeployDrill {

    private static final String NAME = "graceful-deploy";
    private static final int REPLICAS = 3;
    private static final int WORKERS = 4;
    private static final Duration GRACE = Duration.ofSeconds(10);
    /** What a JVM takes beyond the pool's grace to stop: Jetty, the connection pool, shutdown hooks. */
    private static final Duration EXIT_OVERHEAD = Duration.ofSeconds(5);
    /** More than the whole deploy sends: the feed runs until the last replacement is up, then stops. */
    private static final int MOST_CONFLICTS = 10_000;
    private static final int BATCH = 20;
    /** 20 conflicts every 300 ms, a little more than three replicas of 4 workers at 200 ms a call can finish. */
    private static final Duration FEED_PACE = Duration.ofMillis(300);
    private static final Duration LONG_WAIT = Duration.ofSeconds(120);

    /**
     * One replica's turn: what it held when told to stop, and how it went.
     *
     * @param handedBack leases held at SIGTERM whose conflict the process never called for
     */
    private record Step(String replica, String owner, long sigtermAt, int leasesAtSigterm, long handedBack,
                        Optional<Duration> exitedAfter, int exitValue, long leasesAfterExit, boolean loggedStop) {
    }

    @Test
    void aRollingRestartLosesAndRepeatsNothing() throws Exception {
        DrillReport report = new DrillReport(NAME);
        try (DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
            Map<String, String> settings = new LinkedHashMap<>(calls.setting());
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            settings.put("synthesis.invokeTimeout", "5s");
            // A long lease: one that a stopping replica failed to hand back would still carry its name for
            // half a minute, long after the moment the drill looks.
            settings.put("synthesis.leaseDuration", "30s");
            settings.put("synthesis.pollInterval", "1s");
            settings.put("synthesis.shutdownGrace", GRACE.toSeconds() + "s");
            // Slow calls, so that every SIGTERM finds calls in the synthesizer and conflicts claimed behind them.
            settings.put("synthesis.faults.latency", "200ms");
            report.line("settings: " + settings);

            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings));
            }
            List<Step> steps = new ArrayList<>();
            try {
                replicas.forEach(Replica::launch);
                replicas.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                report.line(REPLICAS + " replicas healthy");

                ConflictFeed feed = new ConflictFeed(database, replicas, 3, "jira.create_issue")
                        .start(MOST_CONFLICTS, BATCH, FEED_PACE);
                awaitEveryReplicaCalling(replicas, calls);
                report.line("every replica is calling the synthesizer; " + feed.sent() + " conflicts sent");

                for (Replica replica : replicas) {
                    String owner = replica.owner();
                    Set<UUID> leasedAtSigterm = MergeAudit.leasedBy(database, owner);
                    long sigtermAt = System.currentTimeMillis();
                    Optional<Duration> exited = replica.terminate(GRACE.plus(Duration.ofSeconds(30)));
                    long leasesAfterExit = MergeAudit.leasesHeldBy(database, owner);
                    Set<UUID> called = calls.calledBy(owner);
                    long handedBack = leasedAtSigterm.stream().filter(id -> !called.contains(id)).count();
                    boolean loggedStop = replica.logSinceStart().contains("Synthesis pool " + owner + " stopped");
                    Step step = new Step(replica.name(), owner, sigtermAt, leasedAtSigterm.size(), handedBack,
                            exited, replica.exitValue(), leasesAfterExit, loggedStop);
                    steps.add(step);
                    report.line("SIGTERM " + replica.name() + " (" + owner + ") holding " + leasedAtSigterm.size()
                            + " leases (" + handedBack + " never called for by it), "
                            + calls.runningAt(owner, sigtermAt) + " calls in the synthesizer: "
                            + exited.map(d -> "exited after " + seconds(d) + " with status " + step.exitValue())
                            .orElse("still running after " + seconds(GRACE.plus(Duration.ofSeconds(30)))
                                    + ", killed")
                            + "; leases of it left right after: " + leasesAfterExit
                            + (loggedStop ? "; its pool logged its stop" : "; its pool did not log its stop"));
                    replica.start();
                    report.line("replacement " + replica.name() + " (" + replica.owner() + ") healthy; "
                            + feed.sent() + " conflicts sent");
                }

                feed.stop();
                long sent = feed.awaitEnd(LONG_WAIT);
                report.figure("conflicts sent", sent + " (" + feed.resent()
                        + " batches sent again after no answer or a 5xx)");
                Optional<Duration> drained = MergeAudit.awaitDrained(database, LONG_WAIT);
                report.figure("drain time after the feed stopped",
                        drained.map(GracefulDeployDrill::seconds).orElse("not drained within " + seconds(LONG_WAIT)));

                MergeAudit.Tally tally = MergeAudit.tally(database);
                CallLog.Tally all = calls.tally(null);
                long excess = all.started() - tally.merged();
                Map<UUID, Integer> perConflict = calls.callsPerConflict();
                report.figure("conflicts", tally);
                report.figure("synthesizer calls", all);
                report.figure("excess calls (started minus merges stored)", excess);
                Map<String, CallLog.Tally> stopped = new LinkedHashMap<>();
                long inFlightAtSigterm = 0;
                for (Step step : steps) {
                    stopped.put(step.replica() + " " + step.owner(), calls.tally(step.owner()));
                    inFlightAtSigterm += calls.runningAt(step.owner(), step.sigtermAt());
                }
                report.figure("calls of the stopped processes", stopped);
                report.figure("calls in the synthesizer at the SIGTERMs, all finished", inFlightAtSigterm);
                report.figure("leases held at the SIGTERMs whose call had not started, handed back",
                        steps.stream().mapToLong(Step::handedBack).sum());

                assertThat(drained).as("every conflict finished within %s", LONG_WAIT).isPresent();
                assertThat(steps).as("replicas stopped").hasSize(REPLICAS);
                for (Step step : steps) {
                    assertThat(step.exitedAfter()).as("%s exited on SIGTERM", step.replica()).isPresent();
                    assertThat(step.exitedAfter().get()).as("%s's time to exit", step.replica())
                            .isLessThanOrEqualTo(GRACE.plus(EXIT_OVERHEAD));
                    assertThat(step.leasesAfterExit()).as("leases %s still held after it exited", step.owner())
                            .isZero();
                    CallLog.Tally its = calls.tally(step.owner());
                    assertThat(its.started()).as("calls %s made", step.owner()).isPositive();
                    assertThat(its.ok()).as("calls of %s that ended ok: %s", step.owner(), its)
                            .isEqualTo(its.started());
                }
                // Without calls in flight at a SIGTERM, the drill would not have tested a graceful stop at all.
                assertThat(inFlightAtSigterm).as("calls in the synthesizer when SIGTERM came").isPositive();
                assertThat(tally.conflicts()).as("conflicts stored").isEqualTo(sent);
                assertThat(tally.merged()).as("conflicts merged").isEqualTo(sent);
                assertThat(tally.leased()).as("conflicts still leased").isZero();
                assertThat(tally.repeatedMergeEvents()).as("conflicts with more than one merge event").isZero();
                assertThat(tally.mergedWithoutEvent()).as("merges stored without their event").isZero();
                assertThat(perConflict).as("calls per conflict").hasSize((int) sent)
                        .allSatisfy((conflict, n) -> assertThat(n).as("calls for %s", conflict).isEqualTo(1));
                assertThat(excess).as("calls paid for but not stored").isZero();
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /** Waits until each replica's current process has started a call, so that every SIGTERM lands under load. */
    private static void awaitEveryReplicaCalling(List<Replica> replicas, CallLog calls) {
        Wait.forValue("a synthesizer call from every replica (listed: those that made none yet)", LONG_WAIT,
                Duration.ofMillis(100), () -> replicas.stream()
                        .filter(replica -> calls.tally(replica.owner()).started() == 0).map(Replica::name).toList(),
                List::isEmpty);
    }

    private static String seconds(Duration duration) {
        return String.format("%.1f s", duration.toNanos() / 1e9);
    }
}
