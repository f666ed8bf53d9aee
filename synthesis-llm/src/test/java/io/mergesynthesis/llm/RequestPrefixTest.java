package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a request costs in input: the answer's schema travels once, and everything before the conflict is the same
 * bytes for every conflict, so that a provider's prompt cache can serve it (ADR 0039).
 */
class RequestPrefixTest {

    /** A phrase of the schema that nothing else in a request says. */
    private static final String SCHEMA_PHRASE = "Exactly one entry for every rule except the winner";
    private static final String USER_TURN = "{\"role\":\"user\"";

    private final Prompt prompt = Prompt.shipped();

    private static WireProtocol protocol(ProviderType type) {
        return WireProtocol.of(type);
    }

    private String body(ProviderType type, AnswerMode mode, ConflictSnapshot conflict, RequestPlan plan) {
        ProviderSettings provider = Fixtures.provider(type, "https://provider.example/v1", mode);
        return Fixtures.body(protocol(type).request(provider, "test-model", prompt, conflict, null, plan));
    }

    @ParameterizedTest
    @EnumSource(AnswerMode.class)
    void everyRequestCarriesTheSchemaOnce(AnswerMode mode) {
        for (ProviderType type : ProviderType.values()) {
            String body = body(type, mode, Fixtures.conflict(), new RequestPlan(500, 0));

            assertThat(occurrences(body, SCHEMA_PHRASE)).as(type + " in " + mode + " mode").isEqualTo(1);
        }
    }

    @Test
    void inToolModeTheSchemaIsTheToolsAndThePromptOnlyPointsToIt() throws Exception {
        JsonNode anthropic = Fixtures.JSON.readTree(body(ProviderType.ANTHROPIC, AnswerMode.TOOL, Fixtures.conflict(),
                new RequestPlan(500, 0)));
        JsonNode openAi = Fixtures.JSON.readTree(body(ProviderType.OPENAI, AnswerMode.TOOL, Fixtures.conflict(),
                new RequestPlan(500, 0)));

        assertThat(anthropic.path("tools").get(0).path("input_schema")).isEqualTo(prompt.answerSchema());
        assertThat(anthropic.path("system").get(0).path("text").asText()).doesNotContain("\"properties\"");
        assertThat(openAi.path("tools").get(0).path("function").path("parameters")).isEqualTo(prompt.answerSchema());
        assertThat(openAi.path("messages").get(0).path("content").asText()).doesNotContain("\"properties\"");
    }

    /**
     * Seeded: conflicts of one to twelve rules with random ids, targets and owners, each with the budget it would
     * get; every body is the same bytes up to its first user turn, in every protocol and mode.
     */
    @Test
    void twoDifferentConflictsGiveByteIdenticalPrefixes() {
        Random random = new Random(39);
        for (ProviderType type : ProviderType.values()) {
            for (AnswerMode mode : AnswerMode.values()) {
                String first = null;
                for (int i = 0; i < 40; i++) {
                    ConflictSnapshot conflict = randomConflict(random);
                    String body = body(type, mode, conflict,
                            new RequestPlan(256 + 64 * conflict.rules().size(), 1));
                    String prefix = body.substring(0, body.indexOf(USER_TURN));
                    if (first == null) {
                        first = prefix;
                    }
                    assertThat(prefix).as(type + " " + mode + " conflict " + i).isEqualTo(first);
                    assertThat(body.substring(body.indexOf(USER_TURN))).contains(conflict.conflictId().toString());
                }
                assertThat(first).contains("\"system\"");
            }
        }
    }

    @Test
    void anthropicMarksThePrefixOnlyWhenItReachesTheModelsMinimum() throws Exception {
        String system = prompt.system(Prompt.SchemaPlace.REQUEST);
        JsonNode unmarked = Fixtures.JSON.readTree(body(ProviderType.ANTHROPIC, AnswerMode.TOOL, Fixtures.conflict(),
                new RequestPlan(500, 0)));
        long estimate = TokenEstimate.of(system) + TokenEstimate.of(unmarked.path("tools").toString());

        for (long minimum : new long[] {1, estimate - 1, estimate}) {
            JsonNode body = Fixtures.JSON.readTree(body(ProviderType.ANTHROPIC, AnswerMode.TOOL, Fixtures.conflict(),
                    new RequestPlan(500, (int) minimum)));
            assertThat(body.path("system").get(0).path("cache_control").path("type").asText())
                    .as("minimum " + minimum).isEqualTo("ephemeral");
        }
        for (long minimum : new long[] {0, estimate + 1, 4096}) {
            JsonNode body = Fixtures.JSON.readTree(body(ProviderType.ANTHROPIC, AnswerMode.TOOL, Fixtures.conflict(),
                    new RequestPlan(500, (int) minimum)));
            assertThat(body.path("system").get(0).has("cache_control")).as("minimum " + minimum).isFalse();
        }
        assertThat(unmarked.path("system").get(0).path("text").asText()).isEqualTo(system);
    }

    @Test
    void theBudgetIsThePlansInBothProtocols() throws Exception {
        JsonNode anthropic = Fixtures.JSON.readTree(body(ProviderType.ANTHROPIC, AnswerMode.TOOL, Fixtures.conflict(),
                new RequestPlan(321, 0)));
        JsonNode openAi = Fixtures.JSON.readTree(body(ProviderType.OPENAI, AnswerMode.TOOL, Fixtures.conflict(),
                new RequestPlan(321, 0)));

        assertThat(anthropic.path("max_tokens").asInt()).isEqualTo(321);
        assertThat(openAi.path("max_completion_tokens").asInt()).isEqualTo(321);
    }

    private static int occurrences(String text, String phrase) {
        int count = 0;
        for (int at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
            count++;
        }
        return count;
    }

    private static ConflictSnapshot randomConflict(Random random) {
        int size = 1 + random.nextInt(12);
        List<PolicyRule> rules = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            Scope scope = Scope.values()[random.nextInt(Scope.values().length)];
            rules.add(new PolicyRule("pol-" + r + "-" + Integer.toHexString(random.nextInt()), scope,
                    scope == Scope.PLATFORM ? null : UUID.randomUUID().toString(),
                    Effect.values()[random.nextInt(Effect.values().length)],
                    random.nextBoolean() ? "jira.*" : "tool" + random.nextInt(100) + ".run"));
        }
        UUID org = UUID.randomUUID();
        return new ConflictSnapshot(UUID.randomUUID(), org, "k" + random.nextLong(),
                Action.values()[random.nextInt(Action.values().length)], rules.get(0).target(), rules,
                rules.get(random.nextInt(size)).policyId(), Instant.parse("2026-11-25T10:00:00Z"));
    }
}
