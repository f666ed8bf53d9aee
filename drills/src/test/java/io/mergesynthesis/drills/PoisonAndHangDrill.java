package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;

/**
 * Poison and hang: two replicas whose synthesizer always fails for some targets and hangs on a tenth of all calls.
 * The poison conflicts must end with the max-attempts marker after exactly {@code maxAttempts} calls and never be
 * called again; hung calls must be cut at the invoke timeout; every other conflict gets its merge.
 */
@Tag("drill")
class PoisonAndHangDrill {

    private static final String DRILL = "poison-and-hang";
    private static final int MAX_ATTEMPTS = 4;
    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(1);
    private static final int HEALTHY_CONFLICTS = 300;
    private static final int POISON_CONFLICTS = 30;
    /** How late after the invoke timeout a hung call may be cut: scheduling on a busy machine, not design. */
    private static final Duration CUT_SLACK = Duration.ofSeconds(2);

    @Test
    void poisonEndsWithTheMarkerAndHangsAreCutAtTheTimeout() throws Exception {
        DrillReport report = new DrillReport(DRILL);
        Path dir = Product.workDirectory("drills").resolve(DRILL);
        CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
        Map<String, String> settings = new HashMap<>(calls.setting());
        settings.put("synthesis.maxAttempts", Integer.toString(MAX_ATTEMPTS));
        settings.put("synthesis.invokeTimeout", INVOKE_TIMEOUT.toMillis() + "ms");
        settings.put("synthesis.leaseDuration", "3s");
        settings.put("synthesis.baseBackoff", "200ms");
        settings.put("synthesis.faults.alwaysFailTargets", "^poison\\.");
        settings.put("synthesis.faults.hangRate", "0.1");
        report.line("2 replicas, maxAttempts " + MAX_ATTEMPTS + ", invokeTimeout " + INVOKE_TIMEOUT.toMillis()
                + " ms, hangRate 0.1, alwaysFailTargets ^poison\\.");

        try (DrillDatabase database = DrillDatabase.start(DRILL)) {
            List<Replica> replicas = List.of(DrillReplicas.of("r1", database, dir, settings),
                    DrillReplicas.of("r2", database, dir, settings));
            try {
                replicas.forEach(Replica::start);
                UUID org = UUID.randomUUID();
                String ingest = ApiClient.mintToken(database, "ingest", org);
                long started = System.nanoTime();
                ingest(replicas.get(0), ingest, org, "jira.create_issue", HEALTHY_CONFLICTS, 0);
                ingest(replicas.get(1), ingest, org, "poison.export_all", POISON_CONFLICTS, HEALTHY_CONFLICTS);
                report.line("ingested " + HEALTHY_CONFLICTS + " healthy and " + POISON_CONFLICTS + " poison conflicts");

                long settled = awaitSettled(database, HEALTHY_CONFLICTS + POISON_CONFLICTS, Duration.ofSeconds(120));
                report.figure("settled conflicts", settled);
                report.figure("time to settle", String.format("%.1f s", (System.nanoTime() - started) / 1e9));

                Map<UUID, Row> rows = rows(database);
                Map<UUID, Integer> callsPer = calls.callsPerConflict();
                List<CallLog.Entry> entries = calls.entries();
                Set<UUID> poison = rows.values().stream().filter(r -> r.target().startsWith("poison."))
                        .map(Row::id).collect(Collectors.toSet());

                // Poison: the marker, after exactly maxAttempts calls, none of them after the marker.
                Map<UUID, Long> markedAt = markerTimes(database);
                List<String> poisonProblems = new ArrayList<>();
                for (UUID id : poison) {
                    Row row = rows.get(id);
                    int made = callsPer.getOrDefault(id, 0);
                    if (!row.state().equals("max_attempts_exceeded") || made != MAX_ATTEMPTS
                            || !markedAt.containsKey(id)) {
                        poisonProblems.add(id + ": state " + row.state() + ", calls " + made);
                    }
                }
                long callsAfterMarker = entries.stream()
                        .filter(e -> e.event().equals("start") && markedAt.containsKey(e.conflictId())
                                && e.epochMillis() > markedAt.get(e.conflictId()))
                        .count();

                // Every conflict: never more calls than maxAttempts.
                int mostCalls = callsPer.values().stream().mapToInt(Integer::intValue).max().orElse(0);

                // Hung calls: each ended by an interrupt at about the invoke timeout.
                List<Long> cutAfterMillis = hangDurations(entries);
                long unended = unendedCalls(entries);

                // Healthy conflicts: merged, unless the dice hung every one of their attempts.
                Set<UUID> interruptedEveryTime = interruptedEveryTime(entries);
                List<String> healthyProblems = new ArrayList<>();
                int healthyMarked = 0;
                for (Row row : rows.values()) {
                    if (poison.contains(row.id())) {
                        continue;
                    }
                    if (row.state().equals("done") && row.hasMerge()) {
                        continue;
                    }
                    if (row.state().equals("max_attempts_exceeded") && interruptedEveryTime.contains(row.id())) {
                        healthyMarked++;
                        continue;
                    }
                    healthyProblems.add(row.id() + ": state " + row.state() + ", calls "
                            + callsPer.getOrDefault(row.id(), 0));
                }

                report.figure("synthesizer calls", entries.stream().filter(e -> e.event().equals("start")).count());
                report.figure("poison conflicts with the marker after exactly " + MAX_ATTEMPTS + " calls",
                        (poison.size() - poisonProblems.size()) + " of " + poison.size());
                report.figure("calls after a marker", callsAfterMarker);
                report.figure("most calls for one conflict", mostCalls);
                report.figure("hung calls cut", cutAfterMillis.size());
                report.figure("hung call cut after (min / max ms)", cutAfterMillis.isEmpty() ? "-"
                        : cutAfterMillis.stream().min(Long::compare).get() + " / "
                        + cutAfterMillis.stream().max(Long::compare).get());
                report.figure("calls that never ended", unended);
                report.figure("healthy conflicts merged", HEALTHY_CONFLICTS - healthyProblems.size() - healthyMarked
                        + " of " + HEALTHY_CONFLICTS + " (" + healthyMarked + " hung on every attempt)");
                report.figure("replicas alive", replicas.stream().filter(Replica::isAlive).count());

                assertThat(settled).as("conflicts settled").isEqualTo(HEALTHY_CONFLICTS + POISON_CONFLICTS);
                assertThat(poisonProblems).as("poison conflicts not marked after exactly maxAttempts calls")
                        .isEmpty();
                assertThat(callsAfterMarker).as("calls after a conflict's marker").isZero();
                assertThat(mostCalls).as("calls for one conflict").isLessThanOrEqualTo(MAX_ATTEMPTS);
                assertThat(cutAfterMillis).as("hung calls (the hang rate is 0.1)").isNotEmpty();
                assertThat(cutAfterMillis).as("how long each hung call ran before it was cut")
                        .allSatisfy(millis -> assertThat(millis)
                                .isGreaterThanOrEqualTo(INVOKE_TIMEOUT.toMillis() - 50)
                                .isLessThanOrEqualTo(INVOKE_TIMEOUT.plus(CUT_SLACK).toMillis()));
                assertThat(unended).as("calls started that never ended").isZero();
                assertThat(healthyProblems).as("healthy conflicts without their merge").isEmpty();
                assertThat(replicas).allMatch(Replica::isAlive);
                assertThat(replicas).allMatch(r -> r.healthStatus() == 200);
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    private static void ingest(Replica replica, String token, UUID org, String target, int count, int from)
            throws Exception {
        for (int start = 0; start < count; start += 100) {
            List<String> batch = new ArrayList<>();
            for (int i = start; i < Math.min(count, start + 100); i++) {
                batch.add(ApiClient.conflictJson(org, target, from + i));
            }
            HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), token,
                    "{\"conflicts\": [" + String.join(",", batch) + "]}");
            assertThat(response.statusCode()).as("ingest answered %s", response.statusCode()).isIn(200, 201);
        }
    }

    private static long awaitSettled(DrillDatabase database, int expected, Duration patience) throws Exception {
        String settled = "SELECT count(*) FROM policy_conflicts "
                + "WHERE synthesis_state IN ('done', 'max_attempts_exceeded')";
        Wait.holdsWithin(expected + " conflicts settled", patience, () -> database.count(settled) >= expected);
        return database.count(settled);
    }

    private record Row(UUID id, String target, String state, boolean hasMerge) {
    }

    private static Map<UUID, Row> rows(DrillDatabase database) throws SQLException {
        Map<UUID, Row> rows = new HashMap<>();
        try (Connection c = database.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT id, target, synthesis_state, suggested_merge IS NOT NULL FROM policy_conflicts");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                UUID id = r.getObject(1, UUID.class);
                rows.put(id, new Row(id, r.getString(2), r.getString(3), r.getBoolean(4)));
            }
        }
        return rows;
    }

    /** When each conflict's permanent failure was recorded (its event's time), in epoch milliseconds. */
    private static Map<UUID, Long> markerTimes(DrillDatabase database) throws SQLException {
        Map<UUID, Long> times = new HashMap<>();
        try (Connection c = database.connect(); PreparedStatement s = c.prepareStatement("""
                SELECT conflict_id, (extract(epoch FROM occurred_at) * 1000)::bigint FROM conflict_events
                WHERE event_type = 'synthesis_failed_permanently'""");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                times.put(r.getObject(1, UUID.class), r.getLong(2));
            }
        }
        return times;
    }

    /** For each call that ended by an interrupt, how long it ran (start to interrupted, same replica). */
    private static List<Long> hangDurations(List<CallLog.Entry> entries) {
        Map<String, Long> openCalls = new HashMap<>();
        List<Long> durations = new ArrayList<>();
        for (CallLog.Entry e : entries) {
            String key = e.owner() + " " + e.conflictId();
            if (e.event().equals("start")) {
                openCalls.put(key, e.epochMillis());
            } else {
                Long start = openCalls.remove(key);
                if (start != null && e.event().equals("interrupted")) {
                    durations.add(e.epochMillis() - start);
                }
            }
        }
        return durations;
    }

    private static long unendedCalls(List<CallLog.Entry> entries) {
        Map<String, Integer> open = new HashMap<>();
        for (CallLog.Entry e : entries) {
            open.merge(e.owner() + " " + e.conflictId(), e.event().equals("start") ? 1 : -1, Integer::sum);
        }
        return open.values().stream().filter(n -> n != 0).count();
    }

    /** Conflicts whose every call was cut by an interrupt (a healthy conflict the hang dice hit every time). */
    private static Set<UUID> interruptedEveryTime(List<CallLog.Entry> entries) {
        Set<UUID> ended = new HashSet<>();
        Set<UUID> otherwise = new HashSet<>();
        for (CallLog.Entry e : entries) {
            if (e.event().equals("interrupted")) {
                ended.add(e.conflictId());
            } else if (!e.event().equals("start")) {
                otherwise.add(e.conflictId());
            }
        }
        ended.removeAll(otherwise);
        return ended;
    }
}
