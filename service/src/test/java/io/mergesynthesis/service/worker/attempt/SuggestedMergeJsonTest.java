package io.mergesynthesis.service.worker.attempt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.StubSynthesizer;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SuggestedMergeJsonTest {

    private static final UUID CONFLICT_ID = UUID.fromString("5b0c2a4e-8d1f-4e6a-9c3b-2f7d8e9a0b1c");

    private static final SuggestedMergeJson JSON = new SuggestedMergeJson();
    private static SuggestedMerge merge;

    @BeforeAll
    static void synthesize() throws Exception {
        ConflictSnapshot conflict = new ConflictSnapshot(
                CONFLICT_ID,
                UUID.fromString("0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a"),
                "tool_call:jira.create_issue",
                Action.TOOL_CALL,
                "jira.create_issue",
                List.of(new PolicyRule("pol-17", Scope.ORG, "org-1", Effect.DENY, "jira.*"),
                        new PolicyRule("pol-42", Scope.MEMBER, "member-1", Effect.ALLOW, "jira.create_issue")),
                "pol-17",
                Instant.parse("2026-11-20T10:15:00Z"));
        merge = new StubSynthesizer(Clock.fixed(Instant.parse("2026-11-20T12:00:00Z"), ZoneOffset.UTC))
                .synthesize(conflict, new StubRouter().resolve(Router.MERGE_SYNTHESIS, conflict.orgId()));
    }

    @Test
    void theStubsMergeIsValid() {
        assertThat(JSON.violations(JSON.toTree(merge), CONFLICT_ID)).isEmpty();
    }

    @Test
    void canonicalTextHasTwoSpaceIndentUnixLinesAndATrailingNewline() {
        String text = JSON.toJson(merge);

        assertThat(text)
                .startsWith("{\n  \"schema_version\": 1,\n  \"conflict_id\": \"" + CONFLICT_ID + "\",\n")
                .contains("\n  \"confidence\": null,\n")
                .contains("\n  \"generated_at\": \"2026-11-20T12:00:00Z\"\n")
                .endsWith("}\n")
                .doesNotContain("\r")
                .doesNotContain("\" : ");
    }

    @Test
    void emptyListsAreWrittenCompactly() {
        SuggestedMerge lone = new SuggestedMerge(merge.schemaVersion(), merge.conflictId(), merge.winner(),
                List.of(), merge.resolvedEffect(), merge.mergedRule(), List.of(), merge.rationale(), null,
                merge.producedBy(), merge.generatedAt());

        assertThat(JSON.toJson(lone)).contains("\"losers\": [],\n", "\"loser_actions\": [],\n");
    }

    @Test
    void aMissingFieldIsNamed() {
        ObjectNode tree = tree();
        tree.remove("rationale");

        assertThat(JSON.violations(tree)).singleElement().asString().contains("rationale");
    }

    @Test
    void anUnknownFieldIsNamed() {
        ObjectNode tree = tree();
        tree.put("mood", "optimistic");

        assertThat(JSON.violations(tree)).singleElement().asString().contains("mood");
    }

    @Test
    void anUnknownFieldInANestedObjectIsNamed() {
        ObjectNode tree = tree();
        ((ObjectNode) tree.get("merged_rule")).put("priority", 3);

        assertThat(JSON.violations(tree)).singleElement().asString().contains("merged_rule", "priority");
    }

    @Test
    void aValueOutsideAnEnumIsNamed() {
        ObjectNode tree = tree();
        tree.put("resolved_effect", "maybe");
        ((ObjectNode) tree.get("loser_actions").get(0)).put("action", "rewrite");

        assertThat(JSON.violations(tree))
                .hasSize(2)
                .anySatisfy(m -> assertThat(m).contains("resolved_effect", "enumeration"))
                .anySatisfy(m -> assertThat(m).contains("$.loser_actions[0].action", "enumeration"));
    }

    @Test
    void confidenceAboveOneIsRefused() {
        ObjectNode tree = tree();
        tree.put("confidence", 1.5);

        assertThat(JSON.violations(tree)).singleElement().asString().contains("confidence", "maximum");
    }

    @Test
    void confidenceBetweenZeroAndOneIsAccepted() {
        ObjectNode tree = tree();
        tree.put("confidence", 0.8);

        assertThat(JSON.violations(tree)).isEmpty();
    }

    @Test
    void aMalformedTimestampIsRefused() {
        ObjectNode tree = tree();
        tree.put("generated_at", "yesterday at noon");

        assertThat(JSON.violations(tree)).singleElement().asString().contains("generated_at");
    }

    @Test
    void anEmptyRationaleIsRefused() {
        ObjectNode tree = tree();
        tree.put("rationale", "");

        assertThat(JSON.violations(tree)).singleElement().asString().contains("rationale");
    }

    @Test
    void aMergeForAnotherConflictIsRefused() {
        UUID other = UUID.fromString("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a");

        assertThat(JSON.violations(tree())).isEmpty();
        assertThat(JSON.violations(tree(), other))
                .singleElement().asString().contains("conflict_id", CONFLICT_ID.toString(), other.toString());
    }

    @Test
    void theCheckedTextIsTheCanonicalText() {
        SuggestedMerge lone = new SuggestedMerge(merge.schemaVersion(), merge.conflictId(), merge.winner(),
                List.of(), merge.resolvedEffect(), merge.mergedRule(), List.of(), merge.rationale(), 0.85,
                merge.producedBy(), Instant.parse("2026-11-20T12:00:00.123456Z"));

        for (SuggestedMerge each : List.of(merge, lone)) {
            SuggestedMergeJson.Checked checked = JSON.check(each, CONFLICT_ID);
            assertThat(checked.passed()).isTrue();
            assertThat(checked.json()).isEqualTo(JSON.toJson(each));
        }
    }

    @Test
    void aCheckThatFailsWritesNoText() {
        UUID other = UUID.fromString("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a");

        SuggestedMergeJson.Checked checked = JSON.check(merge, other);

        assertThat(checked.passed()).isFalse();
        assertThat(checked.problems()).singleElement().asString().contains("conflict_id");
        assertThat(checked.json()).isNull();
    }

    private static ObjectNode tree() {
        return (ObjectNode) JSON.toTree(merge);
    }
}
