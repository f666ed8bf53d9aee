package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * kill -9 on the LLM path. Three replicas run the LLM synthesizer against the stand-in provider, which answers
 * slowly (so that calls are in flight when a replica dies), rate-limits (so that some calls are answered 429),
 * and answers the models of some orgs with a low confidence (so that their conflicts are escalated to a second
 * model, over the other wire protocol). While conflicts arrive, replicas are killed outright and started again.
 *
 * <p>The judge is the database and the stand-in's own count of the requests it answered, never the replicas:
 * every conflict has one merge, one event and one {@code stored} ledger row naming the model that wrote it; no
 * answered call is recorded twice; and the answered calls missing from the ledger are at most one per worker of
 * each killed replica, all of them made before the last kill.
 */
@Tag("drill")
class LlmKillDrill {

    private static final String NAME = "llm-kill";
    private static final int REPLICAS = 3;
    private static final int WORKERS = 4;
    /**
     * The most conflicts the feed sends. It sends until the last kill and stops there, so that however long the
     * kills take (a replica starts slowly on a busy machine) there is work in flight for each of them.
     */
    private static final int MOST_CONFLICTS = 1_500;
    private static final int ORGS = 5;
    /** Orgs whose model answers below the escalation threshold: their conflicts take two passes. */
    private static final int HESITANT_ORGS = 2;
    private static final int BATCH = 50;
    /**
     * About 17 conflicts a second, near what the fleet merges at the stand-in's limit on a quiet machine: each
     * batch leaves work pending for a kill, and a busy machine's slower fleet is not buried under a backlog it
     * would take minutes to drain.
     */
    private static final Duration FEED_PACE = Duration.ofSeconds(3);
    private static final int KILLS = 5;
    private static final int HEALTHY_BEFORE_KILL = 2;
    private static final Duration LONG_WAIT = Duration.ofSeconds(120);

    /** Each answer takes this long, so that every worker of a killed replica is likely to be mid-call. */
    private static final Duration LATENCY = Duration.ofMillis(300);
    /** Fewer than the 12 workers could ask at this latency (40 a second), so some calls are answered 429. */
    private static final int RATE_LIMIT_PER_SECOND = 25;

    private static final String KEY = "drill-key";
    private static final String PRIMARY = "local/stand-in";
    private static final String HESITANT = "local/hesitant";
    private static final String ESCALATION = "anthropic/claude-sonnet-4-5";

    /** The replicas' own line for each answer they read (DEBUG), naming the stand-in's request id. */
    private static final Pattern ANSWER_READ = Pattern.compile(
            "provider '([^']+)' model '([^']+)' answered HTTP (\\d+) in \\d+ ms \\(request ([^)\\s]+)\\)");

    /** One kill: whom, and how many requests the stand-in had received once the process was dead. */
    private record Kill(int number, String replica, String owner, long leasesHeld, long requestsSoFar) {
    }

    @Test
    void killedReplicasLoseAtMostTheirWorkersCallsFromTheLedgerAndRecordNothingTwice() throws Exception {
        DrillReport report = new DrillReport(NAME);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Behaviour behaviour = new Behaviour()
                .latency(LATENCY)
                .rateLimitPerSecond(RATE_LIMIT_PER_SECOND)
                // Stated on every answer, the limit would be paced to and no 429 would come: this drill wants them.
                .statesRateLimit(false)
                .expectedKey(KEY)
                .confidence(0.9)
                .confidenceFor(model(HESITANT), 0.4)
                .confidenceFor(model(ESCALATION), 0.95);
        try (StandInProvider standIn = StandInProvider.start(behaviour);
             DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            Map<String, String> environment = StandInEnvironment.of(standIn, KEY, PRIMARY);
            environment.put("LLM_ESCALATION_MODEL", ESCALATION);

            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            // A short lease brings a killed replica's conflicts back within seconds. The invoke timeout holds two
            // passes, each of which may wait for a slot and then for its answer, so that no answered call is cut
            // off by it: here only a kill may lose a call.
            settings.put("synthesis.invokeTimeout", "6s");
            settings.put("synthesis.leaseDuration", "8s");
            settings.put("synthesis.maxAttempts", "3");
            settings.put("synthesis.pollInterval", "1s");
            settings.put("llm.concurrencyWait", "500ms");
            settings.put("llm.providers.local.requestTimeout", "2s");
            settings.put("llm.providers.anthropic.requestTimeout", "2s");
            settings.put("llm.models." + HESITANT + ".inputPerMillionUsd", "0.40");
            settings.put("llm.models." + HESITANT + ".outputPerMillionUsd", "1.60");
            // Each answer read is logged with the stand-in's request id: a call missing from the ledger can then
            // be told apart as answered to the process before it died, or still on its way.
            settings.put("logging.loggers.io\\.mergesynthesis\\.llm\\.ProviderClient", "DEBUG");
            report.line("stand-in: latency " + LATENCY.toMillis() + " ms, " + RATE_LIMIT_PER_SECOND
                    + " requests a second, then 429; models " + PRIMARY + " (confidence 0.9), " + HESITANT
                    + " (0.4, for " + HESITANT_ORGS + " of " + ORGS + " orgs), escalation " + ESCALATION + " (0.95)");
            report.line("settings: " + settings + "; random seed " + seed);

            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings, environment));
            }
            // Replica logs are appended to across runs: only what this run logged counts.
            Map<Replica, Long> logStarts = new HashMap<>();
            replicas.forEach(replica -> logStarts.put(replica, replica.logMark()));
            List<Kill> kills = new ArrayList<>();
            try {
                replicas.forEach(Replica::launch);
                replicas.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                report.line(REPLICAS + " replicas healthy");

                ConflictFeed feed = new ConflictFeed(database, replicas, ORGS, "jira.create_issue");
                giveHesitantModel(database, replicas.get(0), feed.orgs().subList(0, HESITANT_ORGS));
                feed.start(MOST_CONFLICTS, BATCH, FEED_PACE);
                long feedStarted = System.nanoTime();

                // Kills at random moments of a fleet at work, 2 to 3.5 s apart: the drill's own schedule.
                new KillSchedule(KILLS, random, Duration.ofMillis(2_000), Duration.ofMillis(1_500))
                        .run(LONG_WAIT.multipliedBy(KILLS), k -> {
                            Replica victim = awaitBusyVictim(database, replicas, random, k);
                            String owner = victim.owner();
                            long leasesHeld = MergeAudit.leasesHeldBy(database, owner);
                            Stats.Snapshot before = standIn.stats();
                            victim.kill();
                            Kill kill = new Kill(k, victim.name(), owner, leasesHeld, standIn.stats().requests());
                            kills.add(kill);
                            victim.launch();
                            report.line("kill " + k + ": SIGKILL " + victim.name() + " (" + owner + ") holding " + leasesHeld
                                    + " leases, with " + MergeAudit.pending(database) + " conflicts pending and "
                                    + (before.requests() - answered(before)) + " requests awaiting the stand-in's answer; "
                                    + feed.sent() + " sent so far; restarting it");
                        });

                feed.stop();
                long sent = feed.awaitEnd(LONG_WAIT);
                report.figure("conflicts sent", sent + " in " + seconds(System.nanoTime() - feedStarted) + " ("
                        + feed.resent() + " batches sent again after no answer or a 5xx)");
                for (Replica replica : replicas) {
                    replica.awaitHealthy(LONG_WAIT);
                }
                Optional<Duration> drained = MergeAudit.awaitDrained(database, LONG_WAIT);
                report.figure("time from the first conflict sent to drained", seconds(System.nanoTime() - feedStarted));
                Stats.Snapshot stats = awaitStandInQuiet(standIn);

                MergeAudit.Tally tally = MergeAudit.tally(database);
                LedgerAudit.Tally ledger = LedgerAudit.tally(database);
                long answered = answered(stats);
                long missing = answered - ledger.rows();
                long bound = (long) WORKERS * kills.size();
                Map<String, AnswerRead> read = answersRead(logStarts);
                Set<Long> recorded = LedgerAudit.standInSerials(database);
                Map<Integer, List<Long>> missingByKill = new TreeMap<>();
                List<Long> missingAfterLastKill = new ArrayList<>();
                for (long serial = 1; serial <= stats.requests(); serial++) {
                    if (recorded.contains(serial)) {
                        continue;
                    }
                    Kill kill = killBefore(kills, serial);
                    if (kill == null) {
                        missingAfterLastKill.add(serial);
                    } else {
                        missingByKill.computeIfAbsent(kill.number(), n -> new ArrayList<>()).add(serial);
                    }
                }

                report.figure("conflicts", tally);
                report.figure("kills", kills.size());
                report.figure("stand-in requests", stats.requests() + "; answered by status " + stats.byStatus()
                        + "; by model " + stats.byModel() + "; by path " + stats.byPath());
                report.figure("ledger", ledger);
                report.figure("escalations", ledger.byPass().getOrDefault("escalation", 0L) + " escalation calls, "
                        + ledger.mergesByEscalation() + " merges written by the escalation model");
                report.figure("429 answers", stats.status(429) + " from the stand-in, "
                        + ledger.outcome("rate_limited") + " rate_limited rows in the ledger");
                report.figure("attempts handed back uncounted, by reason", LedgerAudit.deferralsByReason(database));
                report.figure("counted failures, by reason", LedgerAudit.failuresByReason(database));
                report.figure("answered calls missing from the ledger (answered minus rows)", answered + " - "
                        + ledger.rows() + " = " + missing);
                report.figure("bound (workers x kills)", WORKERS + " x " + kills.size() + " = " + bound
                        + " (were an escalated attempt allowed to lose both its passes: " + 2 * bound + ")");
                for (Kill kill : kills) {
                    List<Long> lost = missingByKill.getOrDefault(kill.number(), List.of());
                    report.line("kill " + kill.number() + " (" + kill.replica() + ", " + kill.leasesHeld()
                            + " leases held): " + lost.size() + " answered calls missing since the kill before, "
                            + describe(lost, read));
                }
                report.figure("missing calls answered after the last kill", missingAfterLastKill.size() + " "
                        + describe(missingAfterLastKill, read));
                report.figure("request ids recorded more than once", ledger.repeatedRequestIds() + " (rows without "
                        + "a request id: " + ledger.withoutRequestId() + ")");
                report.figure("(conflict, attempt, pass) with more than one stored row", ledger.repeatedStored());
                report.figure("conflicts without exactly one stored row", ledger.conflictsWithoutOneStored());
                report.figure("stored rows not naming the merge's model", ledger.storedNotTheMerge());

                assertThat(drained).as("every conflict finished within %s", LONG_WAIT).isPresent();
                assertThat(kills).as("kills").hasSize(KILLS);
                assertThat(tally.conflicts()).as("conflicts stored").isEqualTo(sent);
                assertThat(tally.merged()).as("conflicts with a stored merge").isEqualTo(sent);
                assertThat(tally.marked()).as("conflicts marked max-attempts").isZero();
                assertThat(tally.leased()).as("conflicts still leased").isZero();
                assertThat(tally.mergeEvents()).as("merge events").isEqualTo(sent);
                assertThat(tally.repeatedMergeEvents()).as("conflicts with more than one merge event").isZero();
                assertThat(tally.mergedWithoutEvent()).as("merges stored without their event").isZero();
                assertThat(stats.status(429)).as("429 answers from the stand-in").isPositive();
                assertThat(ledger.byPass().getOrDefault("escalation", 0L)).as("escalation calls").isPositive();
                assertThat(ledger.repeatedRequestIds()).as("provider request ids recorded more than once").isZero();
                assertThat(ledger.withoutRequestId()).as("ledger rows without the provider's request id").isZero();
                assertThat(ledger.repeatedStored()).as("(conflict, attempt, pass) with more than one stored row")
                        .isZero();
                assertThat(ledger.outcome("stored")).as("stored ledger rows").isEqualTo(sent);
                assertThat(ledger.conflictsWithoutOneStored()).as("conflicts without exactly one stored row").isZero();
                assertThat(ledger.storedNotTheMerge()).as("stored rows not naming the model of the stored merge")
                        .isZero();
                assertThat(missingAfterLastKill).as("answered calls missing from the ledger that no kill explains")
                        .isEmpty();
                assertThat(missing).as("answered calls missing from the ledger (bound: %d workers x %d kills)",
                        WORKERS, kills.size()).isBetween(0L, bound);
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /** Sets the low-confidence model for {@code orgs}, through the API as the platform would. */
    private static void giveHesitantModel(DrillDatabase database, Replica replica, List<UUID> orgs)
            throws Exception {
        String platform = ApiClient.mintToken(database, "platform", null);
        for (UUID org : orgs) {
            HttpResponse<String> response = ApiClient.put(replica.api("/v1/orgs/" + org + "/synthesis"), platform,
                    "{\"model\": \"" + HESITANT + "\", \"monthly_budget_usd\": null}");
            if (response.statusCode() != 200) {
                throw new IllegalStateException("setting the model of org " + org + " answered "
                        + response.statusCode() + ": " + response.body());
            }
        }
    }

    /**
     * A healthy replica whose workers hold leases, once the service as a whole can lose one (at least
     * {@link #HEALTHY_BEFORE_KILL} answer) and more conflicts are pending than every worker together could hold.
     */
    private static Replica awaitBusyVictim(DrillDatabase database, List<Replica> replicas, Random random, int kill) {
        List<Replica> busy = Wait.forValue("a busy replica to kill for kill " + kill + " (if none comes, the load "
                + "ended too soon: send more conflicts or slow the answers)", LONG_WAIT, Duration.ofMillis(50), () -> {
                    List<Replica> healthy = replicas.stream().filter(r -> r.isAlive() && r.healthStatus() == 200)
                            .toList();
                    if (healthy.size() < HEALTHY_BEFORE_KILL
                            || MergeAudit.pending(database) < (long) REPLICAS * WORKERS) {
                        return List.<Replica>of();
                    }
                    return healthy.stream().filter(r -> MergeAudit.leasesHeldBy(database, r.owner()) > 0).toList();
                }, candidates -> !candidates.isEmpty());
        return busy.get(random.nextInt(busy.size()));
    }

    /** The stand-in's figures once every request it received has had its answer sent (bounded wait). */
    private static Stats.Snapshot awaitStandInQuiet(StandInProvider standIn) {
        Wait.holdsWithin("every request to the stand-in answered", Duration.ofSeconds(10), Duration.ofMillis(100),
                () -> {
                    Stats.Snapshot stats = standIn.stats();
                    return answered(stats) >= stats.requests();
                });
        return standIn.stats();
    }

    /** Requests the stand-in has answered, whatever the status. */
    private static long answered(Stats.Snapshot stats) {
        return stats.byStatus().values().stream().mapToLong(Long::longValue).sum();
    }

    /** The first kill at which the stand-in had received request {@code serial}; null if after the last kill. */
    private static Kill killBefore(List<Kill> kills, long serial) {
        return kills.stream().filter(kill -> serial <= kill.requestsSoFar()).findFirst().orElse(null);
    }

    /** An answer a replica read, from its log. */
    private record AnswerRead(String replica, String provider, String model, int status) {
    }

    /** Every answer the replicas read, by the stand-in's serial number. */
    private static Map<String, AnswerRead> answersRead(Map<Replica, Long> logStarts) {
        Map<String, AnswerRead> read = new HashMap<>();
        for (Map.Entry<Replica, Long> log : logStarts.entrySet()) {
            Replica replica = log.getKey();
            Matcher matcher = ANSWER_READ.matcher(replica.logSince(log.getValue()));
            while (matcher.find()) {
                Optional<Long> serial = LedgerAudit.serial(matcher.group(4));
                serial.ifPresent(n -> read.put(Long.toString(n), new AnswerRead(replica.name(), matcher.group(1),
                        matcher.group(2), Integer.parseInt(matcher.group(3)))));
            }
        }
        return read;
    }

    /** How many of {@code serials} the process had read before it died, and which models and statuses those were. */
    private static String describe(List<Long> serials, Map<String, AnswerRead> read) {
        Map<String, Integer> readByModel = new TreeMap<>();
        int notRead = 0;
        for (long serial : serials) {
            AnswerRead answer = read.get(Long.toString(serial));
            if (answer == null) {
                notRead++;
            } else {
                readByModel.merge(answer.provider() + "/" + answer.model() + " HTTP " + answer.status(), 1,
                        Integer::sum);
            }
        }
        return "(" + notRead + " still on their way when the process died, read by it: " + readByModel
                + "; stand-in request numbers " + serials + ")";
    }

    private static String model(String qualified) {
        return qualified.substring(qualified.indexOf('/') + 1);
    }

    private static String seconds(long nanos) {
        return String.format("%.1f s", nanos / 1e9);
    }
}
