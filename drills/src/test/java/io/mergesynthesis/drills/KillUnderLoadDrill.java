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
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;

/**
 * kill -9 under load. Three replicas work on one database while conflicts arrive over HTTP, and every few
 * seconds one of them is killed outright and started again. Afterwards every conflict must have exactly one
 * stored merge (or the max-attempts marker), no lease may be left, and the synthesizer calls paid for nothing
 * (calls started, from the shared call journal, minus merges stored) must not exceed one per worker per kill:
 * a killed process can lose the calls its workers were making, and nothing else.
 */
@Tag("drill")
class KillUnderLoadDrill {

    private static final String NAME = "kill-under-load";
    private static final int REPLICAS = 3;
    private static final int WORKERS = 4;
    /**
     * The most conflicts the feed sends. It sends until the last kill and stops there, so that however long the
     * kills take (a replica starts slowly on a busy machine) each of them lands on a fleet with work waiting.
     */
    private static final int MOST_CONFLICTS = 12_000;
    private static final int ORGS = 5;
    private static final int BATCH = 100;
    /** 100 conflicts every 400 ms: a little more than the fleet merges at 50 ms a call, so a backlog builds. */
    private static final Duration FEED_PACE = Duration.ofMillis(400);
    private static final int KILLS = 6;
    /** A kill waits until this many replicas answer, so the service as a whole stays up, as in production. */
    private static final int HEALTHY_BEFORE_KILL = 2;
    private static final Duration LONG_WAIT = Duration.ofSeconds(120);

    /** One kill and what followed it. */
    private static final class Kill {
        final int number;
        final String replica;
        final String owner;
        final long killedAt = System.nanoTime();
        final long pendingAtKill;
        long leasesOrphaned;
        volatile Duration recoveredAfter;

        Kill(int number, String replica, String owner, long pendingAtKill) {
            this.number = number;
            this.replica = replica;
            this.owner = owner;
            this.pendingAtKill = pendingAtKill;
        }

        @Override
        public String toString() {
            return "kill " + number + " of " + replica + " (" + owner + "): " + pendingAtKill + " pending, "
                    + leasesOrphaned + " leases held";
        }
    }

    @Test
    void killedReplicasLoseAtMostOneCallPerWorkerAndNothingElse() throws Exception {
        DrillReport report = new DrillReport(NAME);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
            Map<String, String> settings = new LinkedHashMap<>(calls.setting());
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            // Short lease, so that a killed replica's conflicts are claimable again within seconds.
            settings.put("synthesis.invokeTimeout", "2s");
            settings.put("synthesis.leaseDuration", "4s");
            settings.put("synthesis.maxAttempts", "3");
            settings.put("synthesis.pollInterval", "1s");
            // Slow calls keep the workers busy, so that every kill cuts calls short.
            settings.put("synthesis.faults.latency", "50ms");
            // The stub's calls stand in for paid ones here, and are held to their bound of one lease per worker: a
            // pool holds leases ahead of its workers for merges that cost nothing when its stores wait longer than
            // the merges take, as they may on a loaded machine (ADR 0077).
            settings.put("synthesis.leasesAheadPerWorker", "0");
            report.line("settings: " + settings + "; random seed " + seed);

            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings));
            }
            List<Kill> kills = new CopyOnWriteArrayList<>();
            ScheduledExecutorService recoveryWatch = Executors.newSingleThreadScheduledExecutor();
            try {
                replicas.forEach(Replica::launch);
                replicas.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                report.line(REPLICAS + " replicas healthy");

                ConflictFeed feed = new ConflictFeed(database, replicas, ORGS, "jira.create_issue")
                        .start(MOST_CONFLICTS, BATCH, FEED_PACE);
                long feedStarted = System.nanoTime();
                recoveryWatch.scheduleWithFixedDelay(() -> watchRecovery(database, kills), 200, 200,
                        TimeUnit.MILLISECONDS);

                // Kills at random moments of a fleet at work, 2 to 3.5 s apart: the drill's own schedule.
                new KillSchedule(KILLS, random, Duration.ofMillis(2_000), Duration.ofMillis(1_500))
                        .run(LONG_WAIT.multipliedBy(KILLS), k -> {
                            List<Replica> healthy = awaitHealthy(replicas, HEALTHY_BEFORE_KILL);
                            awaitBacklog(database, k);
                            Replica victim = healthy.get(random.nextInt(healthy.size()));
                            String owner = victim.owner();
                            Kill kill = new Kill(k, victim.name(), owner, MergeAudit.pending(database));
                            victim.kill();
                            kill.leasesOrphaned = MergeAudit.leasesHeldBy(database, owner);
                            kills.add(kill);
                            victim.launch();
                            report.line("kill " + k + ": SIGKILL " + victim.name() + " (" + owner + ") with "
                                    + kill.pendingAtKill + " conflicts pending, " + feed.sent()
                                    + " sent so far; it held " + kill.leasesOrphaned + " leases; restarting it");
                        });

                feed.stop();
                long sent = feed.awaitEnd(LONG_WAIT);
                long fedAfter = System.nanoTime() - feedStarted;
                report.figure("conflicts sent", sent + " in " + seconds(fedAfter) + " (" + feed.resent()
                        + " batches sent again after no answer or a 5xx)");
                for (Replica replica : replicas) {
                    replica.awaitHealthy(LONG_WAIT);
                }
                Optional<Duration> drained = MergeAudit.awaitDrained(database, LONG_WAIT);
                report.figure("drain time after the last conflict was sent",
                        drained.map(KillUnderLoadDrill::seconds).orElse("not drained within " + seconds(LONG_WAIT)));
                report.figure("time from the first conflict sent to drained",
                        seconds(System.nanoTime() - feedStarted));
                recoveryWatch.shutdown();
                recoveryWatch.awaitTermination(10, TimeUnit.SECONDS);
                watchRecovery(database, kills);

                // A dead process's leases expire after the lease duration, and are then claimed in not_before
                // order like every other claimable conflict: behind whatever backlog arrived before they expired.
                Map<Integer, Long> lostPerKill = new LinkedHashMap<>();
                for (Kill kill : kills) {
                    lostPerKill.put(kill.number, calls.repeatedElsewhere(kill.owner));
                    report.line("kill " + kill.number + " (" + kill.replica + "): its process made "
                            + calls.tally(kill.owner) + "; " + lostPerKill.get(kill.number)
                            + " of its calls were made again elsewhere; its " + kill.leasesOrphaned
                            + " leases were all taken over " + (kill.recoveredAfter == null ? "NEVER"
                            : seconds(kill.recoveredAfter) + " after the kill"));
                }

                MergeAudit.Tally tally = MergeAudit.tally(database);
                CallLog.Tally all = calls.tally(null);
                long excess = all.started() - tally.merged();
                long bound = (long) WORKERS * kills.size();
                Map<UUID, Integer> perConflict = calls.callsPerConflict();
                long calledAgain = perConflict.values().stream().filter(n -> n > 1).count();
                int mostCalls = perConflict.values().stream().mapToInt(Integer::intValue).max().orElse(0);
                report.figure("conflicts", tally);
                report.figure("kills", kills.size());
                report.figure("synthesizer calls", all);
                report.figure("excess calls (started minus merges stored)", excess);
                report.figure("bound (workers x kills)", WORKERS + " x " + kills.size() + " = " + bound);
                report.figure("conflicts called more than once", calledAgain + " (at most " + mostCalls
                        + " calls for one conflict)");

                assertThat(drained).as("every conflict finished within %s", LONG_WAIT).isPresent();
                assertThat(kills).as("kills").hasSize(KILLS);
                assertThat(kills).as("every kill landed while conflicts were pending")
                        .allMatch(kill -> kill.pendingAtKill > 0);
                // The drill is about what a kill cuts short: a run whose victims held nothing would prove nothing.
                assertThat(kills).as("kills of a replica holding leases")
                        .anyMatch(kill -> kill.leasesOrphaned > 0);
                assertThat(tally.conflicts()).as("conflicts stored").isEqualTo(sent);
                assertThat(tally.unfinished()).as("conflicts with neither a merge nor the marker").isZero();
                assertThat(tally.leased()).as("conflicts still leased").isZero();
                assertThat(tally.repeatedMergeEvents()).as("conflicts with more than one merge event").isZero();
                assertThat(tally.mergedWithoutEvent()).as("merges stored without their event").isZero();
                assertThat(tally.eventWithoutMerge()).as("merge events without a stored merge").isZero();
                assertThat(perConflict.keySet()).as("conflicts the synthesizer was called for")
                        .hasSize((int) (tally.merged() + tally.marked()));
                // What a kill can cost is what the process had in hand: one conflict per worker.
                assertThat(kills).as("leases held by a killed replica of %d workers", WORKERS)
                        .allMatch(kill -> kill.leasesOrphaned <= WORKERS);
                assertThat(lostPerKill).as("calls of a killed replica made again elsewhere, per kill")
                        .allSatisfy((kill, lost) -> assertThat(lost).as("kill %d", kill)
                                .isLessThanOrEqualTo(WORKERS));
                assertThat(excess).as("calls paid for but not stored (bound: %d workers x %d kills)", WORKERS,
                        kills.size()).isBetween(0L, bound);
            } finally {
                recoveryWatch.shutdownNow();
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /** Notes when the leases a killed process left behind have all been taken over (or finished). */
    private static void watchRecovery(DrillDatabase database, List<Kill> kills) {
        for (Kill kill : kills) {
            if (kill.recoveredAfter == null && MergeAudit.leasesHeldBy(database, kill.owner) == 0) {
                kill.recoveredAfter = Duration.ofNanos(System.nanoTime() - kill.killedAt);
            }
        }
    }

    /**
     * Waits until more conflicts are pending than every worker together could hold, so that the kill lands on
     * a replica whose workers are all busy; fails if the load has ended.
     */
    private static void awaitBacklog(DrillDatabase database, int kill) {
        Wait.until("a backlog for kill " + kill + " (if none comes, the load ended too soon: slow the calls down or "
                + "send more)", LONG_WAIT, Duration.ofMillis(50), () -> MergeAudit.pending(database) >= (long) REPLICAS * WORKERS);
    }

    /** The replicas that answer their health check, once at least {@code least} do. */
    private static List<Replica> awaitHealthy(List<Replica> replicas, int least) {
        return Wait.forValue("at least " + least + " replicas healthy", LONG_WAIT, Duration.ofMillis(100),
                () -> replicas.stream().filter(r -> r.isAlive() && r.healthStatus() == 200).toList(),
                healthy -> healthy.size() >= least);
    }

    private static String seconds(Duration duration) {
        return seconds(duration.toNanos());
    }

    private static String seconds(long nanos) {
        return String.format("%.1f s", nanos / 1e9);
    }
}
