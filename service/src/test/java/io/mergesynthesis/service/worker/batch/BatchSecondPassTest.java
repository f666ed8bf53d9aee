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
import io.mergesynthesis.standin.UnsafeMerge;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A batch answer that needs a second pass gets it within the same attempt, interactively, as an interactive
 * answer would: one the merge check refuses is repaired, one below {@code llm.escalateBelow} is escalated. The
 * batch's call stays on record in the batch lane, the second pass's in the interactive lane, both in attempt 1.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BatchSecondPassTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().usage(1000, 200, 0, 0));
    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.synthesizer", "llm"),
            ConfigOverride.config("synthesis.pollInterval", "200ms"),
            ConfigOverride.config("synthesis.baseBackoff", "50ms"),
            ConfigOverride.config("llm.primaryModel", "standin/small"),
            ConfigOverride.config("llm.escalationModel", "standin/large"),
            ConfigOverride.config("llm.escalateBelow", "0.7"),
            ConfigOverride.config("llm.providers.standin.type", "anthropic"),
            ConfigOverride.config("llm.providers.standin.baseUrl", STAND_IN.anthropicBaseUrl()),
            ConfigOverride.config("llm.providers.standin.apiKey", TestApp.STAND_IN_KEY),
            ConfigOverride.config("llm.providers.standin.answerMode", "tool"),
            ConfigOverride.config("llm.providers.standin.requestTimeout", "5s"),
            ConfigOverride.config("llm.models.standin/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.standin/small.outputPerMillionUsd", "5"),
            ConfigOverride.config("llm.models.standin/large.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.standin/large.outputPerMillionUsd", "15"),
            ConfigOverride.config("llm.batch.pollInterval", "200ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;
    static Jdbi superuser;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
        superuser = APP.database().jdbi();
    }

    @AfterEach
    void answerSafelyAgain() {
        STAND_IN.behaviour().unsafe(null).rightWhenToldWhy(false).confidenceFor("small", 0.9);
    }

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void aBatchAnswerTheCheckRefusesIsRepairedInteractivelyWithinItsAttempt() {
        STAND_IN.behaviour().unsafe(UnsafeMerge.FLIP_EFFECT).rightWhenToldWhy(true);
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = BatchLaneSteps.inLaneBatch(APP, platform, org, 2, "repair");
        assertThat(STAND_IN.endBatch(BatchLaneSteps.awaitBatchOf(superuser, org))).isTrue();

        BatchLaneSteps.awaitMerged(superuser, conflicts);
        for (UUID conflict : conflicts) {
            assertThat(callsOf(conflict)).extracting(c -> c.get("attempt") + " " + c.get("lane") + " "
                            + c.get("pass") + " " + c.get("outcome"))
                    .containsExactly("1 batch primary refused", "1 interactive escalation stored");
        }
    }

    @Test
    void aHesitantBatchAnswerIsEscalatedInteractivelyWithinItsAttempt() {
        STAND_IN.behaviour().confidenceFor("small", 0.5);
        UUID org = UUID.randomUUID();
        List<UUID> conflicts = BatchLaneSteps.inLaneBatch(APP, platform, org, 2, "hesitant");
        assertThat(STAND_IN.endBatch(BatchLaneSteps.awaitBatchOf(superuser, org))).isTrue();

        BatchLaneSteps.awaitMerged(superuser, conflicts);
        for (UUID conflict : conflicts) {
            assertThat(callsOf(conflict)).extracting(c -> c.get("attempt") + " " + c.get("lane") + " "
                            + c.get("model") + " " + c.get("outcome"))
                    .containsExactly("1 batch small discarded", "1 interactive large stored");
        }
    }

    private static List<Map<String, Object>> callsOf(UUID conflict) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT attempt, lane, pass, model, outcome FROM llm_usage_events
                        WHERE conflict_id = :id ORDER BY lane = 'interactive', created_at""")
                .bind("id", conflict).mapToMap().list());
    }
}
