package io.mergesynthesis.service.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.Outage;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A provider that is down for everyone costs no attempt: the service on the LLM path, a backlog of conflicts,
 * and the stand-in answering 503 to every request in the middle of it, for as long as the circuit takes to send
 * the five probes it sends in thirty seconds under its default settings. The probe waits here are a tenth of the
 * defaults, so that the same outage passes in a few seconds; the outage ends on that signal, not on a timer. Then
 * a quiet org's one conflict while the provider refuses connections. Beside them, the failures that are one
 * conflict's own still reach the marker.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ProviderOutageTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().latency(Duration.ofMillis(200)));
    /** What the circuit sends to a provider that stays down for thirty seconds under its default settings. */
    static final int PROBES_IN_THIRTY_SECONDS = 5;
    /** The calls the four workers may have had in flight when the circuit opened, answered after it. */
    static final int IN_FLIGHT_AT_OPENING = 4;
    static final TestApp APP = TestApp.onStandIn(STAND_IN,
            ConfigOverride.config("llm.circuit.firstProbeAfter", "100ms"),
            ConfigOverride.config("llm.circuit.maxProbeInterval", "1500ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @AfterEach
    void answerWellAgain() throws IOException {
        STAND_IN.outage(Outage.NONE);
        STAND_IN.behaviour().failureRate(0).failNext(0, Failure.SERVER_ERROR);
    }

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void anOutageDuringABacklogCostsNoAttemptAndEveryConflictIsStoredAfterIt() throws Exception {
        UUID org = UUID.randomUUID();
        List<UUID> ids = new ArrayList<>();
        // 4 workers at 200 ms a call merge about 20 a second: the backlog outlasts the start of the outage.
        for (int i = 0; i < 300; i++) {
            ids.add(Seed.conflict(APP, platform, org, "outage-" + i, "jira.create_issue"));
        }
        Wait.until("a first few merges", Duration.ofSeconds(30), () -> count(org, "done") >= 10);

        long requestsBefore = STAND_IN.stats().requests();
        double openingsBefore = openings();
        STAND_IN.outage(Outage.STATUS_503);
        Wait.until("the circuit to open", Duration.ofSeconds(10), () -> !healthy());
        String health = APP.getAdmin("/healthcheck").body();
        long requestsAtOpening = STAND_IN.stats().requests();
        Wait.until(PROBES_IN_THIRTY_SECONDS + " probes of the open circuit", Duration.ofSeconds(30),
                () -> STAND_IN.stats().requests() - requestsAtOpening
                        >= PROBES_IN_THIRTY_SECONDS + IN_FLIGHT_AT_OPENING);
        long callsDuringOutage = STAND_IN.stats().requests() - requestsBefore;
        long doneAtRecovery = count(org, "done");
        STAND_IN.outage(Outage.NONE);
        long recovered = System.nanoTime();
        Wait.until("a merge after the recovery", Duration.ofSeconds(30), () -> count(org, "done") > doneAtRecovery);
        long firstMergeMillis = (System.nanoTime() - recovered) / 1_000_000;
        Wait.until("the whole backlog", Duration.ofSeconds(60), () -> count(org, "done") == ids.size());

        System.out.printf("provider outage of %d probes: %d calls made during it, first merge %d ms after recovery%n",
                PROBES_IN_THIRTY_SECONDS, callsDuringOutage, firstMergeMillis);
        assertThat(health).contains("llm-standin", "is down", "circuit open");
        assertThat(callsDuringOutage).as("the provider is probed, not hammered").isLessThan(100);
        assertThat(doneAtRecovery).as("the outage held the backlog").isLessThan(ids.size());
        assertThat(count(org, "max_attempts_exceeded")).isZero();
        assertThat(countedFailures(org)).as("no attempt counted").isZero();
        assertThat(maxAttempts(org)).as("each conflict took exactly its one successful attempt").isEqualTo(1);
        assertThat(deferrals(org, "provider_outage")).isPositive();
        assertThat(healthy()).isTrue();
        assertThat(openings()).as("one outage, one opening").isEqualTo(openingsBefore + 1);
        assertThat(APP.getAdmin("/metrics").body()).contains("llm_circuit_state{provider=\"standin\",} 0.0");
    }

    @Test
    void aConflictWhoseAnswersAreAlwaysInvalidIsStillMarkedAfterItsAttempts() throws Exception {
        STAND_IN.behaviour().failureKind(Failure.NOT_JSON).failureRate(1.0);
        UUID org = UUID.randomUUID();
        UUID id = Seed.conflict(APP, platform, org, "invalid-1", "drive.share");

        JsonNode marked = awaitState(org, id, "max_attempts_exceeded");

        assertThat(marked.at("/synthesis/attempts").asInt()).isEqualTo(3);
        assertThat(countedFailures(org)).isEqualTo(3);
        assertThat(healthy()).as("an invalid answer is the provider working").isTrue();
    }

    @Test
    void aQuietOrgsOneConflictWaitsUncountedWhileTheProviderRefusesConnectionsAndIsMergedWhenItReturns()
            throws Exception {
        STAND_IN.outage(Outage.REFUSE);
        UUID org = UUID.randomUUID();
        UUID id = Seed.conflict(APP, platform, org, "quiet-1", "drive.share");

        // Four hand-backs take longer than three attempts with their backoff would: the marker would come first.
        Wait.until("the conflict handed back more often than its attempts allow", Duration.ofSeconds(60), () -> {
            assertThat(count(org, "max_attempts_exceeded")).as("marked during an outage").isZero();
            return deferrals(org, "provider_outage") >= 4;
        });
        assertThat(countedFailures(org)).as("no attempt counted").isZero();
        assertThat(healthy()).as("the circuit is open").isFalse();
        STAND_IN.outage(Outage.NONE);
        JsonNode merged = awaitState(org, id, "done");

        assertThat(merged.at("/synthesis/attempts").asInt()).as("only the successful attempt counts").isEqualTo(1);
        assertThat(merged.at("/synthesis/attempt_history/0/outcome").asText()).isEqualTo("deferred");
        assertThat(healthy()).isTrue();
    }

    @Test
    void aConflictTheProviderAlwaysFailsIsMarkedAfterItsAttemptsWhileTheProviderAnswersItsProbes() throws Exception {
        STAND_IN.behaviour().failureKind(Failure.SERVER_ERROR).failureRate(1.0);
        UUID org = UUID.randomUUID();
        UUID id = Seed.conflict(APP, platform, org, "alone-1", "drive.share");

        JsonNode marked = awaitState(org, id, "max_attempts_exceeded");

        assertThat(marked.at("/synthesis/attempts").asInt()).isEqualTo(3);
        assertThat(deferrals(org, "outage_suspected")).isEqualTo(1);
        assertThat(deferrals(org, "provider_outage")).as("a failure with no answer since costs nothing").isPositive();
        assertThat(countedFailures(org)).isEqualTo(3);
    }

    private static double openings() {
        String metrics = APP.getAdmin("/metrics").body();
        String series = "llm_circuit_openings_total{provider=\"standin\",} ";
        int at = metrics.indexOf(series);
        assertThat(at).as("the openings series").isNotNegative();
        int end = metrics.indexOf('\n', at);
        return Double.parseDouble(metrics.substring(at + series.length(), end).trim());
    }

    private static boolean healthy() {
        return APP.getAdmin("/healthcheck").statusCode() == 200;
    }

    private static long count(UUID org, String state) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND synthesis_state = :state")
                .bind("org", org).bind("state", state).mapTo(Long.class).one());
    }

    private static long countedFailures(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM synthesis_attempt_history WHERE org_id = :org AND outcome <> 'deferred'")
                .bind("org", org).mapTo(Long.class).one());
    }

    private static long deferrals(UUID org, String reason) {
        return APP.database().jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM synthesis_attempt_history "
                        + "WHERE org_id = :org AND outcome = 'deferred' AND reason = :reason")
                .bind("org", org).bind("reason", reason).mapTo(Long.class).one());
    }

    private static int maxAttempts(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                        "SELECT max(attempts) FROM policy_conflicts WHERE org_id = :org")
                .bind("org", org).mapTo(Integer.class).one());
    }

    private static JsonNode awaitState(UUID org, UUID id, String state) {
        String admin = APP.token(Role.ORG_ADMIN, org);
        return Wait.forValue("conflict " + id + " in state " + state, Duration.ofSeconds(30),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()),
                conflict -> state.equals(conflict.at("/synthesis/state").asText()));
    }
}
