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
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.UnsafeMerge;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The whole product on the LLM path against a model that answers well-formed but unsafe merges: the service with
 * its worker pool, its database and the stand-in provider over loopback HTTP, a route with an escalation model.
 * Each kind of unsafe answer is refused every time, in both passes: nothing is stored, every attempt's history
 * names the finding, the conflict reaches the marker after its attempts as {@code invalid_json}, and each paid
 * call is one ledger row marked refused. A model that gets it right once told why has its repaired merge stored
 * within the first attempt.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UnsafeMergeEndToEndTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().latency(Duration.ofMillis(5)));
    static final TestApp APP = TestApp.onStandIn(STAND_IN,
            ConfigOverride.config("llm.escalationModel", "standin/large"),
            ConfigOverride.config("llm.models.standin/large.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.standin/large.outputPerMillionUsd", "15"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    /** The pool's default: a conflict whose answers are always refused is marked after this many attempts. */
    static final int MAX_ATTEMPTS = 3;
    private static final Pattern SAMPLE = Pattern.compile("^(\\S+?)(\\{[^}]*})? (\\S+)$", Pattern.MULTILINE);

    static String platform;
    /** What the runs saw, for the summary: refused answers by finding code, repairs, calls, ledger rows. */
    static final Map<String, Long> REFUSED_BY_CODE = new TreeMap<>();
    static long repairsStored;
    static long callsMade;
    static long ledgerRows;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @BeforeEach
    void safeAgain() {
        STAND_IN.behaviour().unsafe(null).rightWhenToldWhy(false).confidence(0.9);
    }

    @AfterAll
    static void summary() {
        STAND_IN.close();
        System.out.printf("unsafe merges end to end: refused answers by finding code %s; repairs stored within the"
                + " attempt %d; provider calls %d; ledger rows %d%n", REFUSED_BY_CODE, repairsStored, callsMade,
                ledgerRows);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "FLIP_EFFECT, resolved_effect_changed",
            "WIDEN_TARGET, merged_target_widened",
            "FOREIGN_OWNER, merged_owner_changed",
            "BASED_ON_LOSER, merged_rule_not_the_winner",
            "KEEP_CONTRADICTING_LOSER, contradicting_loser_kept",
            "REMOVE_STRICTER_LOSER, stricter_loser_removed"})
    void anUnsafeMergeIsNeverStored(UnsafeMerge kind, String code) throws Exception {
        // Confident as can be: the model's confidence never lets a merge past the check.
        STAND_IN.behaviour().unsafe(kind).confidence(0.99);
        Map<String, Double> before = metrics();
        long requestsBefore = STAND_IN.stats().requests();
        long repairsBefore = STAND_IN.stats().repairs();
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);

        UUID id = ingest(org, "unsafe-" + kind);
        JsonNode conflict = awaitState(admin, id, "max_attempts_exceeded");

        assertThat(conflict.at("/synthesis/suggested_merge").isMissingNode()
                || conflict.at("/synthesis/suggested_merge").isNull()).as("no merge stored: %s", conflict).isTrue();
        assertThat(conflict.at("/synthesis/attempts").asInt()).isEqualTo(MAX_ATTEMPTS);
        JsonNode history = conflict.at("/synthesis/attempt_history");
        assertThat(history).hasSize(MAX_ATTEMPTS).allSatisfy(line -> {
            assertThat(line.get("reason").asText()).isEqualTo("invalid_json");
            assertThat(line.get("detail").asText()).contains("the merge check refused").contains(code);
        });
        JsonNode calls = conflict.at("/synthesis/calls");
        assertThat(calls).hasSize(2 * MAX_ATTEMPTS).allSatisfy(call ->
                assertThat(call.get("outcome").asText()).isEqualTo("refused"));
        List<String> passes = new ArrayList<>();
        calls.forEach(call -> passes.add(call.get("attempt").asInt() + ":" + call.get("pass").asText() + ":"
                + call.get("model").asText()));
        // The second pass repairs a refused answer: shown as such, though the ledger keeps it as escalation.
        assertThat(passes).containsExactlyInAnyOrder("1:primary:standin/small", "1:repair:standin/large",
                "2:primary:standin/small", "2:repair:standin/large",
                "3:primary:standin/small", "3:repair:standin/large");
        long requests = STAND_IN.stats().requests() - requestsBefore;
        assertThat(ledgerRows(org)).as("one ledger row per call made").isEqualTo(requests).isEqualTo(2L * MAX_ATTEMPTS);
        assertThat(STAND_IN.stats().repairs() - repairsBefore).as("each attempt's second pass was told why")
                .isEqualTo(MAX_ATTEMPTS);
        assertThat(events(id, "merge_synthesized")).isZero();
        assertThat(events(id, "synthesis_failed_permanently")).isEqualTo(1);

        Map<String, Double> after = metrics();
        assertThat(delta(before, after, "synthesis_failures_total{reason=\"invalid_json\",}"))
                .isEqualTo(MAX_ATTEMPTS);
        assertThat(delta(before, after, "merge_check_refusals_total{code=\"" + code + "\",}"))
                .as("counted once per refused answer").isEqualTo(2 * MAX_ATTEMPTS);
        record(before, after, requests, ledgerRows(org));
    }

    @Test
    void aModelRightWhenToldWhyHasItsRepairStoredWithinOneAttempt() throws Exception {
        STAND_IN.behaviour().unsafe(UnsafeMerge.FOREIGN_OWNER).rightWhenToldWhy(true);
        Map<String, Double> before = metrics();
        long requestsBefore = STAND_IN.stats().requests();
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);

        UUID id = ingest(org, "told-why");
        JsonNode conflict = awaitState(admin, id, "done");

        assertThat(conflict.at("/synthesis/attempts").asInt()).isEqualTo(1);
        assertThat(conflict.at("/synthesis/attempt_history")).isEmpty();
        JsonNode merge = conflict.at("/synthesis/suggested_merge");
        assertThat(merge.at("/merged_rule/scope_id").asText()).as("the winner's owner").isEqualTo(org.toString());
        assertThat(merge.at("/merged_rule/based_on_policy_id").asText()).isEqualTo("pol-org-1");
        assertThat(merge.at("/resolved_effect").asText()).isEqualTo("require_approval");
        assertThat(merge.at("/produced_by/model").asText()).isEqualTo("large");
        JsonNode calls = conflict.at("/synthesis/calls");
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).get("pass").asText() + ":" + calls.get(0).get("outcome").asText())
                .isEqualTo("primary:refused");
        assertThat(calls.get(1).get("pass").asText() + ":" + calls.get(1).get("outcome").asText())
                .isEqualTo("repair:stored");
        long requests = STAND_IN.stats().requests() - requestsBefore;
        assertThat(ledgerRows(org)).isEqualTo(requests).isEqualTo(2);
        assertThat(events(id, "merge_synthesized")).isEqualTo(1);

        Map<String, Double> after = metrics();
        assertThat(delta(before, after, "merge_check_refusals_total{code=\"merged_owner_changed\",}")).isEqualTo(1);
        assertThat(delta(before, after, "synthesis_failures_total{reason=\"invalid_json\",}")).isZero();
        record(before, after, requests, ledgerRows(org));
        repairsStored++;
    }

    /**
     * An org require_approval that wins on the conflict's target, a member allow the winner covers, and a
     * platform deny on the whole tool family, stricter and broader: every kind of unsafe merge has something to
     * break here.
     */
    private static UUID ingest(UUID org, String dedupKey) {
        String report = """
                {"org_id": "%s", "dedup_key": "%s", "action": "tool_call", "target": "jira.create_issue",
                 "rules": [{"policy_id": "pol-org-1", "scope": "org", "scope_id": "%s", "effect": "require_approval",
                            "target": "jira.create_issue"},
                           {"policy_id": "pol-mbr-2", "scope": "member", "scope_id": "m-2", "effect": "allow",
                            "target": "jira.create_issue"},
                           {"policy_id": "pol-plat-3", "scope": "platform", "scope_id": null, "effect": "deny",
                            "target": "jira.*"}],
                 "winner_policy_id": "pol-org-1", "detected_at": "2026-11-20T10:15:00Z"}"""
                .formatted(org, dedupKey, org);
        HttpResponse<String> response = APP.post(platform, "/v1/conflicts", report);
        assertThat(response.statusCode()).as(response.body()).isIn(200, 201);
        return UUID.fromString(Seed.parse(response.body()).get("id").asText());
    }

    private static void record(Map<String, Double> before, Map<String, Double> after, long requests, long rows) {
        after.forEach((series, value) -> {
            if (series.startsWith("merge_check_refusals_total{")) {
                long refused = Math.round(delta(before, after, series));
                if (refused > 0) {
                    REFUSED_BY_CODE.merge(series.replaceAll(".*code=\"([^\"]+)\".*", "$1"), refused, Long::sum);
                }
            }
        });
        callsMade += requests;
        ledgerRows += rows;
    }

    /** Every sample of the admin {@code /metrics} page, by name and labels as written there. */
    private static Map<String, Double> metrics() {
        Map<String, Double> samples = new TreeMap<>();
        Matcher line = SAMPLE.matcher(APP.getAdmin("/metrics").body());
        while (line.find()) {
            if (!line.group(1).startsWith("#")) {
                samples.put(line.group(1) + (line.group(2) == null ? "" : line.group(2)),
                        Double.parseDouble(line.group(3)));
            }
        }
        return samples;
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String series) {
        assertThat(after).as("the series %s is exposed", series).containsKey(series);
        return after.get(series) - before.getOrDefault(series, 0.0);
    }

    private static long ledgerRows(UUID org) {
        return APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM llm_usage_events WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
    }

    private static long events(UUID conflictId, String type) {
        return Seed.eventCount(APP.database().jdbi(), conflictId, type);
    }

    private static JsonNode awaitState(String admin, UUID id, String state) {
        return Wait.forValue("conflict " + id + " in state " + state, Duration.ofSeconds(60),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()),
                conflict -> state.equals(conflict.at("/synthesis/state").asText()));
    }
}
