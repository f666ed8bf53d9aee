package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction.Kind;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StubSynthesizerTest {

    private static final Instant NOW = Instant.parse("2026-11-20T12:00:00Z");
    private static final ResolvedModel MODEL =
            new ResolvedModel(Router.MERGE_SYNTHESIS, StubRouter.PROVIDER, StubRouter.MODEL);

    private final StubSynthesizer stub = new StubSynthesizer(Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aLoserWithTheWinnersEffectIsKept() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.ORG, Effect.DENY, "jira.*"),
                rule("l", Scope.MEMBER, Effect.DENY, "jira.create_issue"));

        assertThat(action.policyId()).isEqualTo("l");
        assertThat(action.action()).isEqualTo(Kind.KEEP);
        assertThat(action.detail()).contains("same effect", "no contradiction");
    }

    @Test
    void sameEffectWinsOverTargetsThatWouldOtherwiseNarrow() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.MEMBER, Effect.ALLOW, "jira.create_issue"),
                rule("l", Scope.ORG, Effect.ALLOW, "*"));

        assertThat(action.action()).isEqualTo(Kind.KEEP);
    }

    @Test
    void aBroaderLoserIsNarrowedToExcludeTheWinnersTarget() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.MEMBER, Effect.ALLOW, "jira.create_issue"),
                rule("l", Scope.ORG, Effect.DENY, "jira.*"));

        assertThat(action.action()).isEqualTo(Kind.NARROW);
        assertThat(action.detail()).startsWith("exclude jira.create_issue from jira.*");
    }

    @Test
    void aWildcardLoserIsNarrowed() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.MEMBER, Effect.ALLOW, "jira.create_issue"),
                rule("l", Scope.ORG, Effect.DENY, "*"));

        assertThat(action.action()).isEqualTo(Kind.NARROW);
        assertThat(action.detail()).startsWith("exclude jira.create_issue from *");
    }

    @Test
    void aLoserInsideTheWinnersTargetIsRemoved() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.ORG, Effect.DENY, "jira.*"),
                rule("l", Scope.MEMBER, Effect.ALLOW, "jira.create_issue"));

        assertThat(action.action()).isEqualTo(Kind.REMOVE);
        assertThat(action.detail()).startsWith("fully shadowed by w");
    }

    @Test
    void aLoserOnTheSameTargetIsRemoved() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.PLATFORM, Effect.DENY, "warehouse.*"),
                rule("l", Scope.ORG, Effect.REQUIRE_APPROVAL, "warehouse.*"));

        assertThat(action.action()).isEqualTo(Kind.REMOVE);
    }

    @Test
    void aLoserOnAnUnrelatedTargetIsKept() {
        LoserAction action = StubSynthesizer.decide(
                rule("w", Scope.ORG, Effect.DENY, "jira.*"),
                rule("l", Scope.MEMBER, Effect.ALLOW, "confluence.*"));

        assertThat(action.action()).isEqualTo(Kind.KEEP);
        assertThat(action.detail()).contains("targets do not overlap");
    }

    @Test
    void theMergeKeepsTheWinnerAndListsLosersInReportedOrder() throws Exception {
        PolicyRule first = rule("pol-1", Scope.MEMBER, Effect.ALLOW, "jira.create_issue");
        PolicyRule winner = rule("pol-2", Scope.ORG, Effect.DENY, "jira.*");
        PolicyRule third = rule("pol-3", Scope.ORG_UNIT, Effect.DENY, "jira.create_issue");
        ConflictSnapshot conflict = conflict(List.of(first, winner, third), "pol-2");

        SuggestedMerge merge = stub.synthesize(conflict, MODEL);

        assertThat(merge.schemaVersion()).isEqualTo(SuggestedMerge.SCHEMA_VERSION);
        assertThat(merge.conflictId()).isEqualTo(conflict.conflictId());
        assertThat(merge.winner().policyId()).isEqualTo("pol-2");
        assertThat(merge.losers()).extracting(SuggestedMerge.RuleRef::policyId).containsExactly("pol-1", "pol-3");
        assertThat(merge.loserActions()).extracting(LoserAction::action).containsExactly(Kind.REMOVE, Kind.KEEP);
        assertThat(merge.resolvedEffect()).isEqualTo(Effect.DENY);
        assertThat(merge.mergedRule())
                .isEqualTo(new MergedRule(Scope.ORG, "org-scope", Effect.DENY, "jira.*", "pol-2"));
        assertThat(merge.confidence()).isNull();
        assertThat(merge.producedBy()).isEqualTo(new ProducedBy("stub", "stub", "stub-deterministic-v1"));
        assertThat(merge.generatedAt()).isEqualTo(NOW);
        assertThat(merge.rationale())
                .contains("org rule pol-2", "pol-1 is removed", "pol-3 is kept")
                .endsWith(".");
    }

    @Test
    void theSameConflictGivesTheSameMerge() throws Exception {
        ConflictSnapshot conflict = conflict(List.of(
                rule("pol-1", Scope.ORG, Effect.DENY, "*"),
                rule("pol-2", Scope.MEMBER, Effect.ALLOW, "jira.create_issue")), "pol-2");

        assertThat(stub.synthesize(conflict, MODEL)).isEqualTo(stub.synthesize(conflict, MODEL));
    }

    @Test
    void aLoneRuleGivesAMergeWithNoLosers() throws Exception {
        ConflictSnapshot conflict = conflict(List.of(rule("pol-1", Scope.PLATFORM, Effect.DENY, "*")), "pol-1");

        SuggestedMerge merge = stub.synthesize(conflict, MODEL);

        assertThat(merge.losers()).isEmpty();
        assertThat(merge.loserActions()).isEmpty();
        assertThat(merge.rationale()).contains("only rule");
    }

    @Test
    void aMissingWinnerIsASynthesisFailure() {
        ConflictSnapshot conflict = conflict(List.of(rule("pol-1", Scope.ORG, Effect.DENY, "*")), "pol-9");

        assertThatThrownBy(() -> stub.synthesize(conflict, MODEL))
                .isInstanceOf(SynthesisException.class)
                .hasMessageContaining("pol-9");
    }

    private static PolicyRule rule(String id, Scope scope, Effect effect, String target) {
        String scopeId = scope == Scope.PLATFORM ? null : scope.wireName() + "-scope";
        return new PolicyRule(id, scope, scopeId, effect, target);
    }

    private static ConflictSnapshot conflict(List<PolicyRule> rules, String winnerId) {
        return new ConflictSnapshot(
                UUID.fromString("00000000-0000-4000-8000-000000000001"),
                UUID.fromString("00000000-0000-4000-8000-000000000002"),
                "test-key", Action.TOOL_CALL, "jira.create_issue", rules, winnerId,
                Instant.parse("2026-11-20T10:00:00Z"));
    }
}
