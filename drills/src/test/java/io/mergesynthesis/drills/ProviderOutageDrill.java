package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Outage;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The model provider goes down under load. Two replicas run the LLM synthesizer against the stand-in provider
 * while conflicts arrive; in the middle of the backlog the stand-in stops answering for 30 seconds (by default it
 * reads requests and never answers, the slowest outage to recognise; {@code -Ddrill.outage.kind=status-503} or
 * {@code refuse} for the others), then answers again.
 *
 * <p>Judged from the database, the stand-in's own count and the replicas' health and metrics: every conflict
 * has its merge and none is marked; no attempt was counted against any conflict; each replica reported
 * {@code llm-local} unhealthy during the outage and healthy after; fewer than 100 calls reached the provider
 * during the outage; work resumed after it.
 */
@Tag("drill")
class ProviderOutageDrill {

    private static final String NAME = "provider-outage";
    private static final int REPLICAS = 2;
    private static final int WORKERS = 4;
    private static final int CONFLICTS = 600;
    private static final int ORGS = 3;
    private static final int BATCH = 50;
    private static final Duration FEED_PACE = Duration.ofMillis(400);
    private static final Duration LATENCY = Duration.ofMillis(150);
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    private static final Duration LONG_WAIT = Duration.ofSeconds(120);
    private static final String KEY = "drill-key";
    private static final Pattern OPENINGS = Pattern.compile(
            "llm_circuit_openings_total\\{provider=\"local\",?} ([0-9.]+)");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void anOutageUnderLoadCostsNoAttemptAndEveryConflictIsStoredAfterIt() throws Exception {
        Outage kind = Outage.fromLabel(System.getProperty("drill.outage.kind", "hang"));
        DrillReport report = new DrillReport(NAME);
        Behaviour behaviour = new Behaviour().latency(LATENCY).expectedKey(KEY).confidence(0.9);
        try (StandInProvider standIn = StandInProvider.start(behaviour);
             DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            Map<String, String> environment = StandInEnvironment.of(standIn, KEY, "local/stand-in");

            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            settings.put("synthesis.invokeTimeout", "6s");
            settings.put("synthesis.leaseDuration", "8s");
            settings.put("synthesis.pollInterval", "1s");
            settings.put("llm.concurrencyWait", "500ms");
            settings.put("llm.providers.local.requestTimeout", "2s");
            settings.put("llm.providers.anthropic.requestTimeout", "2s");
            report.line("stand-in: latency " + LATENCY.toMillis() + " ms; outage '" + kind.label() + "' for "
                    + OUTAGE.toSeconds() + " s in the middle of " + CONFLICTS + " conflicts; " + REPLICAS
                    + " replicas x " + WORKERS + " workers; settings " + settings);

            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings, environment));
            }
            try {
                replicas.forEach(Replica::launch);
                replicas.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                ConflictFeed feed = new ConflictFeed(database, replicas, ORGS, "jira.create_issue");
                feed.start(CONFLICTS, BATCH, FEED_PACE);

                awaitMerged(database, 50, LONG_WAIT);
                long requestsBefore = standIn.stats().requests();
                long outageStarted = System.nanoTime();
                standIn.outage(kind);
                report.line("outage started with " + MergeAudit.pending(database) + " conflicts pending and "
                        + merged(database) + " merged");
                List<Boolean> sawDown = new ArrayList<>();
                for (Replica replica : replicas) {
                    sawDown.add(awaitCircuit(replica, false, OUTAGE));
                }
                long circuitsOpenMillis = (System.nanoTime() - outageStarted) / 1_000_000;
                Map<String, String> healthDuring = new LinkedHashMap<>();
                replicas.forEach(r -> healthDuring.put(r.name(), r.health().body()));
                long mergedDuring = merged(database);
                // The outage lasts its full length on the clock whatever the replicas do meanwhile: its end is the
                // drill's own schedule, and what the replicas did during it is read at that moment.
                Recovery recovery = endOutageOnSchedule(standIn, outageStarted, requestsBefore, database);
                long callsDuring = recovery.callsDuring();
                long mergedAtRecovery = recovery.merged();
                long recovered = recovery.atNanos();
                awaitMerged(database, mergedAtRecovery + 1, LONG_WAIT);
                long firstMergeMillis = (System.nanoTime() - recovered) / 1_000_000;

                feed.awaitEnd(LONG_WAIT);
                Optional<Duration> drained = MergeAudit.awaitDrained(database, LONG_WAIT);
                List<Boolean> healthyAfter = new ArrayList<>();
                for (Replica replica : replicas) {
                    healthyAfter.add(awaitCircuit(replica, true, LONG_WAIT));
                }
                MergeAudit.Tally tally = MergeAudit.tally(database);
                Map<String, Long> failures = LedgerAudit.failuresByReason(database);
                Map<String, Long> deferrals = LedgerAudit.deferralsByReason(database);
                List<Double> openings = new ArrayList<>();
                for (Replica replica : replicas) {
                    openings.add(openings(replica));
                }

                report.figure("circuits open on every replica after", circuitsOpenMillis + " ms");
                report.figure("calls that reached the provider during the outage", callsDuring
                        + " (both replicas, " + OUTAGE.toSeconds() + " s)");
                report.figure("merges stored during the outage", mergedAtRecovery - mergedDuring
                        + " after the circuits opened");
                report.figure("time from recovery to the first merge", firstMergeMillis + " ms");
                report.figure("circuit openings per replica", openings);
                report.figure("conflicts", tally);
                report.figure("counted failures, by reason", failures);
                report.figure("attempts handed back uncounted, by reason", deferrals);
                report.figure("max attempts of any conflict",
                        database.count("SELECT coalesce(max(attempts), 0) FROM policy_conflicts"));
                report.line("health of r1 during the outage: " + healthDuring.get("r1"));

                assertThat(sawDown).as("every replica reported llm-local unhealthy during the outage")
                        .containsOnly(true);
                assertThat(healthyAfter).as("every replica reported llm-local healthy after it").containsOnly(true);
                assertThat(drained).as("every conflict finished within %s", LONG_WAIT).isPresent();
                assertThat(tally.merged()).as("conflicts with a stored merge").isEqualTo(CONFLICTS);
                assertThat(tally.marked()).as("conflicts marked max-attempts").isZero();
                assertThat(tally.mergeEvents()).as("merge events").isEqualTo(CONFLICTS);
                assertThat(failures).as("attempts counted against a conflict").isEmpty();
                assertThat(deferrals).containsKey("provider_outage");
                assertThat(callsDuring).as("calls during the outage: probes, not a flood").isLessThan(100);
                assertThat(openings).as("each replica opened its circuit once").containsOnly(1.0);
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /** The calls that reached the stand-in during the outage, the merges stored by its end, and when it ended. */
    private record Recovery(long callsDuring, long merged, long atNanos) {
    }

    /** Ends the outage {@link #OUTAGE} after {@code outageStarted}, on a schedule. */
    private static Recovery endOutageOnSchedule(StandInProvider standIn, long outageStarted, long requestsBefore,
                                              DrillDatabase database) throws Exception {
        ScheduledExecutorService schedule = Executors.newSingleThreadScheduledExecutor();
        try {
            long left = Math.max(0, outageStarted + OUTAGE.toNanos() - System.nanoTime());
            return schedule.schedule(() -> {
                long calls = standIn.stats().requests() - requestsBefore;
                long mergedThen = merged(database);
                standIn.outage(Outage.NONE);
                return new Recovery(calls, mergedThen, System.nanoTime());
            }, left, TimeUnit.NANOSECONDS).get(OUTAGE.toSeconds() + 60, TimeUnit.SECONDS);
        } finally {
            schedule.shutdownNow();
        }
    }

    private static long merged(DrillDatabase database) {
        return database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'");
    }

    private static void awaitMerged(DrillDatabase database, long atLeast, Duration limit) {
        Wait.until(atLeast + " merges", limit, Duration.ofMillis(20), () -> merged(database) >= atLeast);
    }

    /** Waits until the replica reports {@code llm-local} healthy (or not); false when it never did in time. */
    private static boolean awaitCircuit(Replica replica, boolean healthy, Duration limit) {
        return Wait.holdsWithin(replica.name() + "'s llm-local check " + (healthy ? "healthy" : "down"), limit,
                Duration.ofMillis(100), () -> {
                    Replica.Health health = replica.health();
                    return health.status() > 0 && health.healthy("llm-local") == healthy;
                });
    }

    private static double openings(Replica replica) throws Exception {
        HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(replica.admin("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher matcher = OPENINGS.matcher(metrics.body());
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : -1;
    }
}
