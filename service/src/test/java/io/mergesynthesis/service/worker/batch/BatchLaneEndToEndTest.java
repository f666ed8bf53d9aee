package io.mergesynthesis.service.worker.batch;

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
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The batch lane end to end: the service with the LLM synthesizer against the stand-in speaking Anthropic's
 * Message Batches on loopback. An org in lane batch has its conflicts sent in one batch, stored as suggested
 * merges when the batch ends, each on record once in the ledger at half the price, each billed once; and a batch
 * whose provider id was never recorded is found at the provider and adopted, not sent again.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BatchLaneEndToEndTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().usage(1000, 200, 0, 0));
    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.synthesizer", "llm"),
            ConfigOverride.config("synthesis.pollInterval", "200ms"),
            ConfigOverride.config("synthesis.baseBackoff", "50ms"),
            ConfigOverride.config("llm.primaryModel", "standin/small"),
            ConfigOverride.config("llm.providers.standin.type", "anthropic"),
            ConfigOverride.config("llm.providers.standin.baseUrl", STAND_IN.anthropicBaseUrl()),
            ConfigOverride.config("llm.providers.standin.apiKey", TestApp.STAND_IN_KEY),
            ConfigOverride.config("llm.providers.standin.answerMode", "tool"),
            ConfigOverride.config("llm.providers.standin.requestTimeout", "5s"),
            ConfigOverride.config("llm.models.standin/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.standin/small.outputPerMillionUsd", "5"),
            ConfigOverride.config("llm.batch.pollInterval", "200ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    /** 1,000 input tokens at 1 USD and 200 output tokens at 5 USD a million, halved. */
    static final BigDecimal BATCH_COST = new BigDecimal("0.001");
    static final Duration WAIT = Duration.ofSeconds(60);

    static String platform;
    static Jdbi superuser;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
        superuser = APP.database().jdbi();
    }

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void anOrgInLaneBatchHasItsConflictsMergedFromOneBatchEachOnRecordOnceAtHalfPrice() {
        long batchesBefore = STAND_IN.stats().batches();
        long billedBefore = STAND_IN.stats().batchBilled();
        long callsBefore = STAND_IN.stats().path("/v1/messages");
        UUID org = UUID.randomUUID();
        int n = 5;
        List<UUID> conflicts = inLaneBatchReporting(org, n, "e2e");

        String batch = awaitOneBatchHolding(org, n);
        assertThat(STAND_IN.stats().batches() - batchesBefore).as("one create").isEqualTo(1);
        assertThat(STAND_IN.stats().path("/v1/messages") - callsBefore).as("no interactive call").isZero();
        String admin = APP.token(Role.ORG_ADMIN, org);
        JsonNode inBatch = Seed.parse(APP.get(admin, "/v1/conflicts/" + conflicts.get(0)).body()).path("synthesis");
        assertThat(inBatch.path("state").asText()).isEqualTo("batched");
        assertThat(inBatch.path("batch").path("provider_batch_id").asText()).isEqualTo(batch);
        assertThat(inBatch.path("batch").path("since").asText()).isNotEmpty();
        assertThat(STAND_IN.endBatch(batch)).isTrue();

        awaitDone(conflicts);
        JsonNode done = Seed.parse(APP.get(admin, "/v1/conflicts/" + conflicts.get(0)).body()).path("synthesis");
        assertThat(done.has("batch")).as("out of the batch").isFalse();
        assertThat(done.path("calls")).hasSize(1);
        assertThat(done.path("calls").get(0).path("lane").asText()).isEqualTo("batch");
        JsonNode usage = Seed.parse(APP.get(admin, "/v1/usage").body());
        assertThat(usage.path("by_lane")).hasSize(1);
        assertThat(usage.path("by_lane").get(0).path("lane").asText()).isEqualTo("batch");
        assertThat(usage.path("by_lane").get(0).path("calls").asLong()).isEqualTo(n);
        assertThat(usage.path("by_lane").get(0).path("cost_usd").decimalValue())
                .isEqualByComparingTo(BATCH_COST.multiply(BigDecimal.valueOf(n)));
        assertThat(STAND_IN.stats().batchBilled() - billedBefore).as("each conflict billed once").isEqualTo(n);
        List<Map<String, Object>> ledger = ledgerOf(org);
        assertThat(ledger).hasSize(n);
        assertThat(ledger).allSatisfy(row -> {
            assertThat(row.get("lane")).isEqualTo("batch");
            assertThat(row.get("outcome")).isEqualTo("stored");
            assertThat((BigDecimal) row.get("cost_usd")).isEqualByComparingTo(BATCH_COST);
        });
        assertThat(ledger.stream().map(row -> row.get("conflict_id")).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(conflicts);
        long merged = superuser.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND suggested_merge IS NOT NULL")
                .bind("org", org).mapTo(Long.class).one());
        assertThat(merged).isEqualTo(n);
        List<String> states = superuser.withHandle(h -> h.createQuery(
                "SELECT state FROM llm_batches WHERE org_id = :org").bind("org", org).mapTo(String.class).list());
        assertThat(states).containsExactly("done");
        assertThat(metric("llm_batches_total", "outcome=\"sent\"")).isPositive();
        assertThat(metric("llm_batches_total", "outcome=\"ended\"")).isPositive();
    }

    @Test
    void aBatchIsSizedToTheOrgsBudgetAndReservesItsExpectedCostSoThatOnlyItsLastRequestMayGoOver() {
        UUID org = UUID.randomUUID();
        int n = 5;
        // About three thousandths of a dollar is what a request may cost here at most (its body, and every output
        // token it may write, at half price): a budget of five lets two go, not five.
        BigDecimal budget = new BigDecimal("0.005");
        List<UUID> conflicts = inLaneBatchReporting(org, budget, n, "budget");

        Map<String, Object> batch = Wait.forValue("a batch of org " + org + ", sent", WAIT,
                () -> superuser.withHandle(h -> h.createQuery("""
                        SELECT requests, reserved_cost_usd FROM llm_batches
                        WHERE org_id = :org AND provider_batch_id IS NOT NULL""")
                        .bind("org", org).mapToMap().findOne().orElse(null)),
                found -> found != null);
        int requests = ((Number) batch.get("requests")).intValue();
        BigDecimal reserved = (BigDecimal) batch.get("reserved_cost_usd");
        assertThat(requests).as("requests in the batch").isBetween(1, n - 1);
        assertThat(reserved).as("reserved").isGreaterThanOrEqualTo(budget);
        BigDecimal oneRequest = reserved.divide(BigDecimal.valueOf(requests), java.math.MathContext.DECIMAL64);
        assertThat(reserved.subtract(oneRequest)).as("what all but the last request reserve").isLessThan(budget);
        long batched = superuser.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND synthesis_state = 'batched'")
                .bind("org", org).mapTo(Long.class).one());
        assertThat(batched).isEqualTo(requests);
        List<Map<String, Object>> left = superuser.withHandle(h -> h.createQuery(
                "SELECT synthesis_state, attempts FROM policy_conflicts WHERE org_id = :org AND batch_id IS NULL")
                .bind("org", org).mapToMap().list());
        assertThat(left).hasSize(n - requests).allSatisfy(row -> {
            assertThat(row.get("synthesis_state")).isEqualTo("pending");
            assertThat(row.get("attempts")).as("no attempt counted").isEqualTo(0);
        });
        assertThat(conflicts).hasSize(n);
    }

    @Test
    void anOrgLeavingTheBatchLaneOrLoweringItsBudgetHasItsBatchesCanceledAndThePlatformMayCancelOne() {
        UUID leaving = UUID.randomUUID();
        List<UUID> conflicts = inLaneBatchReporting(leaving, 2, "leaving");
        String leavingBatch = awaitOneBatchHolding(leaving, 2);
        var interactive = APP.put(platform, "/v1/orgs/" + leaving + "/synthesis", "{\"lane\": \"interactive\"}");
        assertThat(interactive.statusCode()).as(interactive.body()).isEqualTo(200);
        assertThat(cancelReasonsOf(leaving)).containsExactly("lane_changed");
        // The provider hears of it from the batch's next poll; what it then returns canceled waits again, and the
        // interactive lane answers it.
        Wait.until("the provider asked to cancel", WAIT, () -> superuser.withHandle(h -> h.createQuery(
                "SELECT cancel_sent_at IS NOT NULL FROM llm_batches WHERE org_id = :org")
                .bind("org", leaving).mapTo(Boolean.class).one()));
        assertThat(STAND_IN.endBatch(leavingBatch)).isTrue();
        awaitDone(conflicts);
        assertThat(ledgerOf(leaving)).extracting(row -> row.get("lane")).containsOnly("interactive").hasSize(2);
        assertThat(STAND_IN.billedByCustomId().keySet()).as("nothing of the canceled batch billed")
                .noneMatch(id -> BatchCustomId.decode(id).map(c -> conflicts.contains(c.conflictId()))
                        .orElse(false));

        UUID lowering = UUID.randomUUID();
        inLaneBatchReporting(lowering, new BigDecimal("1.00"), 2, "lowering");
        awaitOneBatchHolding(lowering, 2);
        var kept = APP.put(platform, "/v1/orgs/" + lowering + "/synthesis",
                "{\"lane\": \"batch\", \"monthly_budget_usd\": 0.50}");
        assertThat(kept.statusCode()).as(kept.body()).isEqualTo(200);
        assertThat(cancelReasonsOf(lowering)).as("a budget still above what is reserved").isEmpty();
        var lowered = APP.put(platform, "/v1/orgs/" + lowering + "/synthesis",
                "{\"lane\": \"batch\", \"monthly_budget_usd\": 0.001}");
        assertThat(lowered.statusCode()).as(lowered.body()).isEqualTo(200);
        assertThat(cancelReasonsOf(lowering)).containsExactly("budget_lowered");

        UUID asked = UUID.randomUUID();
        inLaneBatchReporting(asked, 2, "asked");
        awaitOneBatchHolding(asked, 2);
        UUID batchId = superuser.withHandle(h -> h.createQuery("SELECT id FROM llm_batches WHERE org_id = :org")
                .bind("org", asked).mapTo(UUID.class).one());
        var cancel = APP.post(platform, "/v1/batches/" + batchId + "/cancel", "");
        assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(202);
        assertThat(Seed.parse(cancel.body()).path("cancel_reason").asText()).isEqualTo("requested");
        assertThat(cancelReasonsOf(asked)).containsExactly("requested");
        var listed = Seed.parse(APP.get(platform, "/v1/batches").body()).path("batches");
        assertThat(listed.findValuesAsText("id")).contains(batchId.toString());
        long events = superuser.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM conflict_events WHERE org_id = :org AND event_type = 'batch_cancel_requested'""")
                .bind("org", asked).mapTo(Long.class).one());
        assertThat(events).as("the platform's cancel on the org's record").isEqualTo(1);
    }

    private static List<String> cancelReasonsOf(UUID org) {
        return superuser.withHandle(h -> h.createQuery(
                "SELECT cancel_reason FROM llm_batches WHERE org_id = :org AND cancel_requested_at IS NOT NULL")
                .bind("org", org).mapTo(String.class).list());
    }

    @Test
    void anOrgThatHasSpentItsBudgetSendsNoBatch() {
        UUID spent = UUID.randomUUID();
        inLaneBatchReporting(spent, BigDecimal.ZERO, 2, "spent");
        // An org reported after it, with no budget: once its batch is sent, the lane has looked at both.
        UUID other = UUID.randomUUID();
        inLaneBatchReporting(other, 2, "after");
        awaitOneBatchHolding(other, 2);

        long batches = superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM llm_batches WHERE org_id = :org")
                .bind("org", spent).mapTo(Long.class).one());
        assertThat(batches).isZero();
        long pending = superuser.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE org_id = :org AND synthesis_state = 'pending'")
                .bind("org", spent).mapTo(Long.class).one());
        assertThat(pending).isEqualTo(2);
    }

    @Test
    void aBatchWhoseProviderIdWasNeverRecordedIsAdoptedFromTheListAndNothingIsSentAgain() {
        UUID org = UUID.randomUUID();
        int n = 3;
        List<UUID> conflicts = inLaneBatchReporting(org, n, "crash");
        String batch = awaitOneBatchHolding(org, n);
        long batchesBefore = STAND_IN.stats().batches();

        // The replica that sent the create died before it recorded the answer: the row has no provider id, and
        // its grace for a create on its way has long run out.
        int forgotten = superuser.withHandle(h -> h.createUpdate("""
                UPDATE llm_batches SET provider_batch_id = NULL, state = 'sending', sent_at = NULL,
                       created_at = now() - interval '1 hour', poll_owner = NULL, poll_until = NULL,
                       next_poll_at = now()
                WHERE org_id = :org""").bind("org", org).execute());
        assertThat(forgotten).isEqualTo(1);
        assertThat(STAND_IN.endBatch(batch)).isTrue();

        awaitDone(conflicts);
        assertThat(STAND_IN.stats().batches() - batchesBefore).as("no batch sent again").isZero();
        String adopted = superuser.withHandle(h -> h.createQuery(
                "SELECT provider_batch_id FROM llm_batches WHERE org_id = :org").bind("org", org)
                .mapTo(String.class).one());
        assertThat(adopted).isEqualTo(batch);
        assertThat(ledgerOf(org)).hasSize(n);
        assertThat(metric("llm_batches_total", "outcome=\"adopted\"")).isPositive();
    }

    @Test
    void anExpiredBatchPutsItsConflictsBackWithNoAttemptCountedAndNothingOnRecord() {
        long billedBefore = STAND_IN.stats().batchBilled();
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = inLaneBatchReporting(org, 2, "expiry");
        String first = awaitOneBatchHolding(org, 2);

        assertThat(STAND_IN.expireBatch(first)).isTrue();

        // Back to pending with the attempt taken back, they go in the next batch as their first attempt again.
        String second = Wait.forValue("the expired batch's conflicts in a batch of their own", WAIT,
                () -> awaitOneBatchHolding(org, 2), id -> !id.equals(first));
        List<Integer> attempts = superuser.withHandle(h -> h.createQuery(
                "SELECT attempts FROM policy_conflicts WHERE org_id = :org").bind("org", org)
                .mapTo(Integer.class).list());
        assertThat(attempts).containsOnly(1);
        assertThat(ledgerOf(org)).isEmpty();
        assertThat(STAND_IN.stats().batchBilled() - billedBefore).isZero();

        assertThat(STAND_IN.endBatch(second)).isTrue();
        awaitDone(conflicts);
        assertThat(ledgerOf(org)).hasSize(2);
    }

    @Test
    void aConflictResolvedWhileInABatchKeepsItsResolutionAndItsPaidAnswerIsOnRecordAsDiscarded() {
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = inLaneBatchReporting(org, 2, "resolved");
        String batch = awaitOneBatchHolding(org, 2);
        UUID resolved = conflicts.get(0);
        UUID merged = conflicts.get(1);
        var resolve = APP.post(APP.token(Role.ORG_ADMIN, org), "/v1/conflicts/" + resolved + "/resolve",
                "{\"resolution\": \"manual\", \"note\": \"decided by hand\"}");
        assertThat(resolve.statusCode()).as(resolve.body()).isEqualTo(200);

        assertThat(STAND_IN.endBatch(batch)).isTrue();

        awaitDone(List.of(merged));
        Wait.until("the resolved conflict's synthesis not needed", WAIT, () -> "not_needed".equals(
                superuser.withHandle(h -> h.createQuery("SELECT synthesis_state FROM policy_conflicts WHERE id = :id")
                        .bind("id", resolved).mapTo(String.class).one())));
        Map<String, Object> row = superuser.withHandle(h -> h.createQuery(
                "SELECT inbox_status, resolution, suggested_merge IS NULL AS no_merge FROM policy_conflicts "
                        + "WHERE id = :id").bind("id", resolved).mapToMap().one());
        assertThat(row).containsEntry("inbox_status", "resolved").containsEntry("resolution", "manual")
                .containsEntry("no_merge", true);
        Map<Object, Object> outcomes = ledgerOf(org).stream()
                .collect(Collectors.toMap(r -> r.get("conflict_id"), r -> r.get("outcome")));
        assertThat(outcomes).containsEntry(resolved, "discarded").containsEntry(merged, "stored").hasSize(2);
    }

    @Test
    void anItemReportedWithLaneBatchGoesInABatchWhileTheRestOfItsOrgIsAnsweredOneByOne() {
        UUID org = UUID.randomUUID();
        String reports = "{\"conflicts\": [" + withLaneBatch(Seed.report(org, "item-0", "jira.a")) + ","
                + withLaneBatch(Seed.report(org, "item-1", "jira.b")) + "," + Seed.report(org, "item-2", "jira.c")
                + "]}";
        var ingested = APP.post(platform, "/v1/conflicts", reports);
        assertThat(ingested.statusCode()).as(ingested.body()).isIn(200, 201);
        List<UUID> all = superuser.withHandle(h -> h.createQuery("SELECT id FROM policy_conflicts WHERE org_id = :org")
                .bind("org", org).mapTo(UUID.class).list());

        String batch = awaitOneBatchHolding(org, 2);
        assertThat(STAND_IN.endBatch(batch)).isTrue();

        awaitDone(all);
        List<String> lanes = ledgerOf(org).stream().map(row -> (String) row.get("lane")).sorted().toList();
        assertThat(lanes).containsExactly("batch", "batch", "interactive");
    }

    private static String withLaneBatch(String report) {
        return report.substring(0, report.lastIndexOf('}')) + ", \"lane\": \"batch\"}";
    }

    /** Puts {@code org} in lane batch and reports {@code n} conflicts in one request; their ids. */
    private static List<UUID> inLaneBatchReporting(UUID org, int n, String prefix) {
        return inLaneBatchReporting(org, null, n, prefix);
    }

    /** @param budget the org's monthly budget in USD, null for none */
    private static List<UUID> inLaneBatchReporting(UUID org, BigDecimal budget, int n, String prefix) {
        return BatchLaneSteps.inLaneBatch(APP, platform, org, budget, n, prefix);
    }

    /** The stand-in's id of the batch of {@code org}, once its row records it with its {@code n} conflicts. */
    private static String awaitOneBatchHolding(UUID org, int n) {
        return Wait.forValue("a batch of org " + org + " with its " + n + " conflicts, sent", WAIT,
                () -> superuser.withHandle(h -> h.createQuery("""
                        SELECT b.provider_batch_id FROM llm_batches b
                        WHERE b.org_id = :org AND b.provider_batch_id IS NOT NULL AND b.requests = :n
                          AND (SELECT count(*) FROM policy_conflicts c
                               WHERE c.batch_id = b.id AND c.synthesis_state = 'batched') = :n""")
                        .bind("org", org).bind("n", n).mapTo(String.class).findOne().orElse(null)),
                id -> id != null);
    }

    private static void awaitDone(List<UUID> conflicts) {
        Wait.until("every conflict merged", WAIT, () -> superuser.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE id = ANY(:ids) AND synthesis_state = 'done'")
                .bind("ids", conflicts.toArray(new UUID[0])).mapTo(Long.class).one()) == conflicts.size());
    }

    /** The value of the series of {@code name} whose labels hold {@code label}, from the admin port; 0 if none. */
    private static double metric(String name, String label) {
        return APP.getAdmin("/metrics").body().lines()
                .filter(line -> line.startsWith(name + "{") && line.contains(label))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static List<Map<String, Object>> ledgerOf(UUID org) {
        return superuser.withHandle(h -> h.createQuery(
                "SELECT conflict_id, lane, outcome, cost_usd FROM llm_usage_events WHERE org_id = :org")
                .bind("org", org).mapToMap().list());
    }

}
