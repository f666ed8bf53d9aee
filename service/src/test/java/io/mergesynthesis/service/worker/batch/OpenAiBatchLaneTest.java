package io.mergesynthesis.service.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The batch lane over OpenAI's Batch API: the requests uploaded as a file, the batch carrying its row's id in its
 * metadata, the answers read as chat completions and on record once at the batch price. A batch whose create went
 * unanswered is recognised by that metadata while it is still in progress, without waiting for it to end.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OpenAiBatchLaneTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().usage(1000, 200, 0, 0));
    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.synthesizer", "llm"),
            ConfigOverride.config("synthesis.pollInterval", "200ms"),
            ConfigOverride.config("llm.primaryModel", "standin/small"),
            ConfigOverride.config("llm.providers.standin.type", "openai"),
            ConfigOverride.config("llm.providers.standin.baseUrl", STAND_IN.openAiBaseUrl()),
            ConfigOverride.config("llm.providers.standin.apiKey", TestApp.STAND_IN_KEY),
            ConfigOverride.config("llm.providers.standin.requestTimeout", "5s"),
            ConfigOverride.config("llm.models.standin/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.standin/small.outputPerMillionUsd", "5"),
            ConfigOverride.config("llm.batch.pollInterval", "200ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    /** 1,000 input tokens at 1 USD and 200 output tokens at 5 USD a million, halved. */
    static final BigDecimal BATCH_COST = new BigDecimal("0.001");

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
    void anOrgInLaneBatchIsAnsweredThroughOneOpenAiBatchOnRecordOnceAtHalfPrice() {
        long billedBefore = STAND_IN.stats().batchBilled("openai");
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = BatchLaneSteps.inLaneBatch(APP, platform, org, 4, "openai");
        String batch = BatchLaneSteps.awaitBatchOf(superuser, org);
        assertThat(STAND_IN.stats().path("/v1/chat/completions")).as("no interactive call").isZero();
        assertThat(STAND_IN.endBatch(batch)).isTrue();

        BatchLaneSteps.awaitMerged(superuser, conflicts);
        assertThat(STAND_IN.stats().batchBilled("openai") - billedBefore).isEqualTo(4);
        List<Map<String, Object>> ledger = superuser.withHandle(h -> h.createQuery(
                "SELECT lane, outcome, cost_usd FROM llm_usage_events WHERE org_id = :org")
                .bind("org", org).mapToMap().list());
        assertThat(ledger).hasSize(4).allSatisfy(row -> {
            assertThat(row.get("lane")).isEqualTo("batch");
            assertThat(row.get("outcome")).isEqualTo("stored");
            assertThat((BigDecimal) row.get("cost_usd")).isEqualByComparingTo(BATCH_COST);
        });
    }

    @Test
    void aBatchWhoseCreateWentUnansweredIsFoundByItsMetadataWhileStillInProgress() {
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = BatchLaneSteps.inLaneBatch(APP, platform, org, 2, "forgotten");
        String batch = BatchLaneSteps.awaitBatchOf(superuser, org);
        long batchesBefore = STAND_IN.stats().batches("openai");
        int forgotten = superuser.withHandle(h -> h.createUpdate("""
                UPDATE llm_batches SET provider_batch_id = NULL, state = 'sending', sent_at = NULL,
                       created_at = now() - interval '1 hour', poll_owner = NULL, poll_until = NULL,
                       next_poll_at = now()
                WHERE org_id = :org""").bind("org", org).execute());
        assertThat(forgotten).isEqualTo(1);

        // Still in progress at the provider, and recognised all the same.
        String adopted = Wait.forValue("the batch adopted", BatchLaneSteps.WAIT,
                () -> superuser.withHandle(h -> h.createQuery(
                        "SELECT provider_batch_id FROM llm_batches WHERE org_id = :org").bind("org", org)
                .mapTo(String.class).findOne().orElse(null)), id -> id != null);
        assertThat(adopted).isEqualTo(batch);
        assertThat(STAND_IN.batchesInProgress()).contains(batch);
        assertThat(STAND_IN.endBatch(batch)).isTrue();
        BatchLaneSteps.awaitMerged(superuser, conflicts);
        assertThat(STAND_IN.stats().batches("openai") - batchesBefore).as("nothing sent again").isZero();
    }
}
