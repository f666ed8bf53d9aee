package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every way an answer can fail the conflict, one at a time. */
class AnswerCheckTest {

    private static ObjectNode valid() throws Exception {
        return (ObjectNode) Fixtures.JSON.readTree(Fixtures.answer(0.8));
    }

    private static void assertRejected(Consumer<ObjectNode> spoil, String expectedMessagePart) throws Exception {
        ObjectNode answer = valid();
        spoil.accept(answer);
        assertThatThrownBy(() -> AnswerCheck.check(answer.toString(), Fixtures.conflict(), 65536))
                .isInstanceOf(AnswerRejected.class)
                .hasMessageContaining(expectedMessagePart);
    }

    private static ObjectNode mergedRule(ObjectNode answer) {
        return (ObjectNode) answer.get("merged_rule");
    }

    private static ArrayNode actions(ObjectNode answer) {
        return (ArrayNode) answer.get("loser_actions");
    }

    @Test
    void theValidAnswerPassesWithActionsInTheConflictsLoserOrder() throws Exception {
        ModelAnswer answer = AnswerCheck.check(valid().toString(), Fixtures.conflict(), 65536);

        assertThat(answer.resolvedEffect()).isEqualTo(Effect.DENY);
        assertThat(answer.mergedRule().scope()).isEqualTo(Scope.ORG);
        assertThat(answer.loserActions()).extracting(LoserAction::policyId).containsExactly("pol-mbr-2", "pol-ou-3");
        assertThat(answer.rationale()).isEqualTo("The org rule wins.");
    }

    @Test
    void aMissingFieldIsNamed() throws Exception {
        assertRejected(a -> a.remove("rationale"), "the answer lacks rationale");
    }

    @Test
    void anExtraFieldIsNamed() throws Exception {
        assertRejected(a -> a.put("schema_version", 1), "fields it should not: schema_version");
    }

    @Test
    void aMergedRuleFieldMissingOrExtra() throws Exception {
        assertRejected(a -> mergedRule(a).remove("scope_id"), "merged_rule lacks scope_id");
        assertRejected(a -> mergedRule(a).put("priority", 3), "merged_rule has fields it should not: priority");
    }

    @Test
    void anUnknownPolicyIdAnywhere() throws Exception {
        assertRejected(a -> mergedRule(a).put("based_on_policy_id", "pol-made-up"),
                "merged_rule.based_on_policy_id names 'pol-made-up'");
        assertRejected(a -> ((ObjectNode) actions(a).get(0)).put("policy_id", "pol-made-up"),
                "loser_actions[].policy_id names 'pol-made-up', which is not one of the conflict's policy ids");
    }

    @Test
    void aLoserWithoutAnAction() throws Exception {
        assertRejected(a -> actions(a).remove(1), "no action for the losing rule(s) pol-mbr-2");
    }

    @Test
    void aLoserWithTwoActions() throws Exception {
        assertRejected(a -> actions(a).add(actions(a).get(0).deepCopy()), "gives pol-ou-3 more than one action");
    }

    @Test
    void theWinnerWithAnAction() throws Exception {
        assertRejected(a -> actions(a).addObject().put("policy_id", "pol-org-1").put("action", "keep").put("detail", "x"),
                "gives an action to the winner pol-org-1");
    }

    @Test
    void wrongTypesAndValues() throws Exception {
        assertRejected(a -> a.put("resolved_effect", "permit"), "resolved_effect must be allow, deny or require_approval");
        assertRejected(a -> a.put("resolved_effect", 1), "resolved_effect must be a non-empty string");
        assertRejected(a -> mergedRule(a).put("scope", "team"), "merged_rule.scope must be");
        assertRejected(a -> mergedRule(a).put("scope_id", 42), "merged_rule.scope_id must be a non-empty string or null");
        assertRejected(a -> mergedRule(a).put("target", ""), "merged_rule.target must be a non-empty string");
        assertRejected(a -> ((ObjectNode) actions(a).get(0)).put("action", "delete"), "must be keep, narrow or remove");
        assertRejected(a -> ((ObjectNode) actions(a).get(0)).put("detail", " "), "loser_actions[].detail must be");
        assertRejected(a -> a.put("loser_actions", "none"), "loser_actions must be an array");
        assertRejected(a -> a.put("rationale", (String) null), "rationale must be a non-empty string");
        assertRejected(a -> a.put("confidence", "high"), "confidence must be a number from 0 to 1");
        assertRejected(a -> a.put("confidence", 1.5), "confidence must be a number from 0 to 1");
        assertRejected(a -> a.putNull("confidence"), "confidence must be a number from 0 to 1");
    }

    @Test
    void aNullScopeIdIsAllowedForPlatformRules() throws Exception {
        ObjectNode answer = valid();
        mergedRule(answer).putNull("scope_id");

        assertThat(AnswerCheck.check(answer.toString(), Fixtures.conflict(), 65536).mergedRule().scopeId()).isNull();
    }

    @Test
    void notJsonOrNotAnObjectOrTrailingText() {
        assertThatThrownBy(() -> AnswerCheck.check("I think deny.", Fixtures.conflict(), 65536))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> AnswerCheck.check("[1,2]", Fixtures.conflict(), 65536))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> AnswerCheck.check("{\"a\":1}{\"b\":2}", Fixtures.conflict(), 65536))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("not JSON");
    }

    @Test
    void duplicateKeysAreRejected() {
        String twice = Fixtures.answer(0.8).replace("\"rationale\":", "\"rationale\":\"first\",\"rationale\":");

        assertThatThrownBy(() -> AnswerCheck.check(twice, Fixtures.conflict(), 65536))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("not JSON");
    }

    @Test
    void anAnswerOverTheByteLimit() throws Exception {
        String answer = valid().toString();
        int size = answer.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        assertThat(AnswerCheck.check(answer, Fixtures.conflict(), size).confidence()).isEqualTo(0.8);
        assertThatThrownBy(() -> AnswerCheck.check(answer, Fixtures.conflict(), size - 1))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("more than the " + (size - 1) + " allowed");
    }

    @Test
    void aConflictWithoutLosersTakesAnEmptyActionList() throws Exception {
        ConflictSnapshot alone = new ConflictSnapshot(UUID.randomUUID(), UUID.randomUUID(), "k", Action.DATA_EXPORT,
                "bigquery.export_table",
                List.of(new PolicyRule("pol-plt-1", Scope.PLATFORM, null, Effect.REQUIRE_APPROVAL, "*")),
                "pol-plt-1", Instant.parse("2026-11-20T11:50:30Z"));
        String answer = """
                {"resolved_effect":"require_approval",
                 "merged_rule":{"scope":"platform","scope_id":null,"effect":"require_approval","target":"*",
                                "based_on_policy_id":"pol-plt-1"},
                 "loser_actions":[], "rationale":"Only one rule.", "confidence":1}
                """;

        assertThat(AnswerCheck.check(answer, alone, 65536).loserActions()).isEmpty();
        assertThatThrownBy(() -> AnswerCheck.check(answer.replace("[]",
                "[{\"policy_id\":\"pol-plt-1\",\"action\":\"keep\",\"detail\":\"x\"}]"), alone, 65536))
                .isInstanceOf(AnswerRejected.class).hasMessageContaining("winner");
    }
}
