package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.MergeFinding.Code;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction.Kind;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import io.mergesynthesis.synthesis.SuggestedMerge.RuleRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The unsafe merges a well-formed but wrong answer can hold, each refused with the finding an admin would read. */
class MergeCheckTest {

    private static final UUID ORG = Conflicts.ORG;
    private static final String OTHER_ORG = "24a14d13-e8ef-4c71-8bde-36c29c0aa912";

    private static final PolicyRule PLATFORM_DENY = new PolicyRule("pol-plat-1", Scope.PLATFORM, null, Effect.DENY,
            "export.*");
    private static final PolicyRule ORG_DENY_ALL = new PolicyRule("pol-org-1", Scope.ORG, ORG.toString(), Effect.DENY,
            "*");
    private static final PolicyRule ORG_ALLOW = new PolicyRule("pol-org-2", Scope.ORG, ORG.toString(), Effect.ALLOW,
            "export.crm_contacts");

    private final ConflictSnapshot platformConflict = conflict("export.crm_contacts", PLATFORM_DENY,
            List.of(ORG_DENY_ALL, ORG_ALLOW));

    @Test
    void theRightMergePasses() {
        assertThat(MergeCheck.check(platformConflict, merge(platformConflict, Effect.DENY,
                new MergedRule(Scope.PLATFORM, null, Effect.DENY, "export.*", "pol-plat-1"),
                List.of(Kind.KEEP, Kind.REMOVE)))).isEmpty();
    }

    @Test
    void aMergeThatTurnsADenyWinnerIntoAllowOnEverythingIsRefusedOnEveryCount() {
        List<MergeFinding> findings = MergeCheck.check(platformConflict, merge(platformConflict, Effect.ALLOW,
                new MergedRule(Scope.PLATFORM, OTHER_ORG, Effect.ALLOW, "*", "pol-plat-1"),
                List.of(Kind.REMOVE, Kind.REMOVE)));

        assertThat(findings).extracting(MergeFinding::code).containsExactly(
                Code.RESOLVED_EFFECT_CHANGED, Code.MERGED_EFFECT_CHANGED, Code.MERGED_OWNER_CHANGED,
                Code.MERGED_TARGET_WIDENED, Code.AGREEING_LOSER_CHANGED);
        assertThat(findings.get(2).message()).contains(OTHER_ORG, "no owner (the platform)");
        assertThat(findings.get(3).message()).contains("* reaches beyond export.*");
    }

    @Test
    void removingAStricterBroaderLoserGrantsNewAccess() {
        PolicyRule memberAllow = new PolicyRule("pol-mbr-4", Scope.MEMBER, "member-31", Effect.ALLOW,
                "github.delete_repo");
        PolicyRule orgDeny = new PolicyRule("pol-org-9", Scope.ORG, ORG.toString(), Effect.DENY, "github.*");
        ConflictSnapshot conflict = conflict("github.delete_repo", memberAllow, List.of(orgDeny));

        List<MergeFinding> findings = MergeCheck.check(conflict, merge(conflict, Effect.ALLOW,
                merged(memberAllow), List.of(Kind.REMOVE)));

        assertThat(findings).extracting(MergeFinding::code).containsExactly(Code.STRICTER_LOSER_REMOVED);
        assertThat(findings.get(0).policyId()).isEqualTo("pol-org-9");
        assertThat(findings.get(0).code().property()).isEqualTo(MergeFinding.Property.GRANTS_NO_NEW_ACCESS);
        assertThat(findings.get(0).message()).contains("outside github.delete_repo");
    }

    @Test
    void aMergedRuleThatIsTheLosersRuleIsRefused() {
        PolicyRule orgDeny = new PolicyRule("pol-org-9", Scope.ORG, ORG.toString(), Effect.DENY, "github.*");
        PolicyRule memberAllow = new PolicyRule("pol-mbr-4", Scope.MEMBER, "member-31", Effect.ALLOW,
                "github.delete_repo");
        ConflictSnapshot conflict = conflict("github.delete_repo", orgDeny, List.of(memberAllow));

        List<MergeFinding> findings = MergeCheck.check(conflict, merge(conflict, Effect.DENY,
                merged(memberAllow), List.of(Kind.REMOVE)));

        assertThat(findings).extracting(MergeFinding::code).containsExactly(Code.MERGED_EFFECT_CHANGED,
                Code.MERGED_RULE_NOT_THE_WINNER, Code.MERGED_SCOPE_CHANGED, Code.MERGED_OWNER_CHANGED,
                Code.MERGED_TARGET_NARROWED);
    }

    @Test
    void keepingAContradictingOverlappingLoserLeavesTheConflict() {
        PolicyRule orgDeny = new PolicyRule("pol-org-9", Scope.ORG, ORG.toString(), Effect.DENY, "github.*");
        PolicyRule memberAllow = new PolicyRule("pol-mbr-4", Scope.MEMBER, "member-31", Effect.ALLOW,
                "github.delete_repo");
        ConflictSnapshot conflict = conflict("github.delete_repo", orgDeny, List.of(memberAllow));

        List<MergeFinding> findings = MergeCheck.check(conflict, merge(conflict, Effect.DENY,
                merged(orgDeny), List.of(Kind.KEEP)));

        assertThat(findings).extracting(MergeFinding::code).containsExactly(Code.CONTRADICTING_LOSER_KEPT);
        assertThat(findings.get(0).toString()).startsWith("contradicting_loser_kept: The merge keeps pol-mbr-4");
    }

    @Test
    void anActionForTheWinnerOrAMissingActionIsRefused() {
        ConflictSnapshot conflict = platformConflict;
        SuggestedMerge merge = merge(conflict, Effect.DENY, merged(PLATFORM_DENY), List.of(Kind.KEEP, Kind.REMOVE));
        SuggestedMerge wrongActions = new SuggestedMerge(merge.schemaVersion(), merge.conflictId(), merge.winner(),
                merge.losers(), merge.resolvedEffect(), merge.mergedRule(),
                List.of(merge.loserActions().get(0), new LoserAction("pol-plat-1", Kind.KEEP, "the winner")),
                merge.rationale(), merge.confidence(), merge.producedBy(), merge.generatedAt());

        assertThat(MergeCheck.check(conflict, wrongActions)).extracting(MergeFinding::code)
                .containsExactly(Code.LOSER_ACTION_UNEXPECTED, Code.LOSER_ACTION_MISSING);
    }

    @Test
    void everyCodeHasAStableWireNameAndAProperty() {
        for (Code code : Code.values()) {
            assertThat(code.wireName()).matches("[a-z_]+");
            assertThat(code.property()).isNotNull();
        }
    }

    private static MergedRule merged(PolicyRule rule) {
        return new MergedRule(rule.scope(), rule.scopeId(), rule.effect(), rule.target(), rule.policyId());
    }

    private static ConflictSnapshot conflict(String target, PolicyRule winner, List<PolicyRule> losers) {
        List<PolicyRule> rules = new ArrayList<>(losers);
        rules.add(0, winner);
        return new ConflictSnapshot(UUID.randomUUID(), ORG, "k", Action.DATA_EXPORT, target, rules,
                winner.policyId(), Instant.parse("2026-11-20T10:15:00Z"));
    }

    private static SuggestedMerge merge(ConflictSnapshot conflict, Effect resolved, MergedRule rule, List<Kind> kinds) {
        List<PolicyRule> losers = conflict.losers();
        List<LoserAction> actions = new ArrayList<>();
        for (int i = 0; i < losers.size(); i++) {
            actions.add(new LoserAction(losers.get(i).policyId(), kinds.get(i), "as the answer said"));
        }
        return new SuggestedMerge(SuggestedMerge.SCHEMA_VERSION, conflict.conflictId(),
                RuleRef.of(conflict.winner().orElseThrow()), losers.stream().map(RuleRef::of).toList(), resolved,
                rule, actions, "words", 0.9, new ProducedBy("test", "p", "m"), Instant.parse("2026-11-20T12:00:00Z"));
    }
}
