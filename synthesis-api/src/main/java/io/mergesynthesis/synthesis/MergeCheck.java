package io.mergesynthesis.synthesis;

import io.mergesynthesis.synthesis.MergeFinding.Code;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.SuggestedMerge.RuleRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a suggested merge keeps the product's promises for its conflict, whoever wrote it: the stub, a
 * model, or a third party's synthesizer. A merge must keep the winner's rule as it is (effect, layer, owner and
 * target), grant nobody access the rules did not, leave no contradicting rule on the winner's target, and touch
 * no rule it does not need to.
 *
 * <p>Because targets are {@code *}, {@code prefix.*} or exact names, any two of them nest or are disjoint (see
 * {@link TargetPattern}), so for every losing rule exactly one action is right, and {@link #expectedAction}
 * says which. What the check cannot judge is the words: a rationale or a detail is the synthesizer's own.
 *
 * <p>Stateless and thread-safe; it reads nothing but its arguments.
 */
public final class MergeCheck {

    /**
     * The version of the rules below. Raise it whenever a rule changes, so that a stored merge can say which
     * rules it was checked against.
     */
    public static final int VERSION = 1;

    private MergeCheck() {
    }

    /**
     * Everything {@code merge} breaks for {@code conflict}, in the order of {@link MergeFinding.Property}; an empty
     * list means the merge passed.
     */
    public static List<MergeFinding> check(ConflictSnapshot conflict, SuggestedMerge merge) {
        Objects.requireNonNull(conflict, "conflict");
        Objects.requireNonNull(merge, "merge");
        PolicyRule winner = conflict.winner().orElse(null);
        List<MergeFinding> findings = new ArrayList<>();
        if (winner == null) {
            findings.add(new MergeFinding(Code.WINNER_MISMATCH, conflict.winnerPolicyId(),
                    "The conflict names " + conflict.winnerPolicyId() + " as its winner, but none of its rules has"
                            + " that policy id, so no merge can keep the winner."));
            return findings;
        }
        matchesTheConflict(conflict, winner, merge, findings);
        keepsTheWinner(conflict, winner, merge, findings);
        Map<String, LoserAction> actions = actionsByLoser(merge);
        for (PolicyRule loser : conflict.losers()) {
            LoserAction action = actions.get(loser.policyId());
            if (action != null && action.action() != null) {
                loserFinding(winner, loser, action.action()).ifPresent(findings::add);
            }
        }
        findings.sort((a, b) -> Integer.compare(a.code().property().ordinal(), b.code().property().ordinal()));
        return List.copyOf(findings);
    }

    /**
     * The one right action for {@code loser}: keep a rule that agrees with the winner or does not overlap it,
     * narrow a contradicting rule broader than the winner, remove a contradicting rule the winner covers.
     */
    public static LoserAction.Kind expectedAction(PolicyRule winner, PolicyRule loser) {
        if (loser.effect() == winner.effect()) {
            return LoserAction.Kind.KEEP;
        }
        if (TargetPattern.strictlyCovers(loser.target(), winner.target())) {
            return LoserAction.Kind.NARROW;
        }
        if (TargetPattern.covers(winner.target(), loser.target())) {
            return LoserAction.Kind.REMOVE;
        }
        return LoserAction.Kind.KEEP;
    }

    /**
     * True when {@code effect} lets less through than {@code than}: deny is stricter than require_approval,
     * which is stricter than allow.
     */
    public static boolean isStricter(Effect effect, Effect than) {
        return strictness(effect) > strictness(than);
    }

    private static int strictness(Effect effect) {
        return switch (effect) {
            case ALLOW -> 0;
            case REQUIRE_APPROVAL -> 1;
            case DENY -> 2;
        };
    }

    private static void matchesTheConflict(ConflictSnapshot conflict, PolicyRule winner, SuggestedMerge merge,
                                           List<MergeFinding> findings) {
        if (!Objects.equals(merge.conflictId(), conflict.conflictId())) {
            findings.add(new MergeFinding(Code.CONFLICT_ID_MISMATCH, null,
                    "The merge is for conflict " + merge.conflictId() + ", not for this conflict "
                            + conflict.conflictId() + "."));
        }
        if (!RuleRef.of(winner).equals(merge.winner())) {
            findings.add(new MergeFinding(Code.WINNER_MISMATCH, winner.policyId(),
                    "The merge names " + describe(merge.winner()) + " as the winner, but the policy engine chose "
                            + describe(RuleRef.of(winner)) + "."));
        }
        List<RuleRef> losers = conflict.losers().stream().map(RuleRef::of).toList();
        if (!losers.equals(merge.losers())) {
            findings.add(new MergeFinding(Code.LOSERS_MISMATCH, null,
                    "The merge lists the losing rules as " + policyIds(merge.losers()) + ", but the conflict's"
                            + " losing rules are " + policyIds(losers) + ", as reported."));
        }
        Set<String> loserIds = new HashSet<>();
        conflict.losers().forEach(loser -> loserIds.add(loser.policyId()));
        Set<String> seen = new HashSet<>();
        for (LoserAction action : nullSafe(merge.loserActions())) {
            String id = action.policyId();
            if (!loserIds.contains(id)) {
                findings.add(new MergeFinding(Code.LOSER_ACTION_UNEXPECTED, id,
                        "The merge gives an action to " + id + ", which is not one of the conflict's losing rules."));
            } else if (!seen.add(id)) {
                findings.add(new MergeFinding(Code.LOSER_ACTION_UNEXPECTED, id,
                        "The merge gives the losing rule " + id + " more than one action."));
            } else if (action.action() == null) {
                findings.add(new MergeFinding(Code.LOSER_ACTION_MISSING, id,
                        "The merge names the losing rule " + id + " without saying keep, narrow or remove."));
            }
        }
        for (PolicyRule loser : conflict.losers()) {
            if (!seen.contains(loser.policyId())) {
                findings.add(new MergeFinding(Code.LOSER_ACTION_MISSING, loser.policyId(),
                        "The merge says nothing about the losing rule " + describe(loser) + "."));
            }
        }
    }

    private static void keepsTheWinner(ConflictSnapshot conflict, PolicyRule winner, SuggestedMerge merge,
                                       List<MergeFinding> findings) {
        String who = "the winner " + describe(winner);
        if (merge.resolvedEffect() != winner.effect()) {
            findings.add(new MergeFinding(Code.RESOLVED_EFFECT_CHANGED, winner.policyId(),
                    "The merge says the result is " + words(merge.resolvedEffect()) + ", but " + who
                            + " decided " + words(winner.effect()) + "."));
        }
        MergedRule merged = merge.mergedRule();
        if (merged == null) {
            findings.add(new MergeFinding(Code.MERGED_RULE_NOT_THE_WINNER, winner.policyId(),
                    "The merge has no merged rule, so nothing keeps " + who + "."));
            return;
        }
        if (merged.effect() != winner.effect()) {
            findings.add(new MergeFinding(Code.MERGED_EFFECT_CHANGED, winner.policyId(),
                    "The merged rule would " + words(merged.effect()) + ", but " + who + " says "
                            + words(winner.effect()) + "."));
        }
        if (!winner.policyId().equals(merged.basedOnPolicyId())) {
            findings.add(new MergeFinding(Code.MERGED_RULE_NOT_THE_WINNER, winner.policyId(),
                    "The merged rule is based on " + merged.basedOnPolicyId() + ", not on " + who + "."));
        }
        if (merged.scope() != winner.scope()) {
            findings.add(new MergeFinding(Code.MERGED_SCOPE_CHANGED, winner.policyId(),
                    "The merged rule sits at the " + layer(merged.scope()) + " layer, but " + who + " is a "
                            + layer(winner.scope()) + " rule."));
        }
        if (!Objects.equals(merged.scopeId(), winner.scopeId())) {
            findings.add(new MergeFinding(Code.MERGED_OWNER_CHANGED, winner.policyId(),
                    "The merged rule belongs to " + owner(merged.scopeId()) + ", but " + who + " belongs to "
                            + owner(winner.scopeId()) + "."));
        }
        String target = merged.target();
        if (target == null || !TargetPattern.covers(winner.target(), target)) {
            findings.add(new MergeFinding(Code.MERGED_TARGET_WIDENED, winner.policyId(),
                    "The merged rule's target " + target + " reaches beyond " + winner.target() + ", the target"
                            + " of " + who + "."));
        } else if (!target.equals(winner.target())) {
            findings.add(new MergeFinding(Code.MERGED_TARGET_NARROWED, winner.policyId(),
                    "The merged rule's target " + target + " is narrower than " + winner.target() + "; the rest of "
                            + who + " would be dropped."));
        }
        if (target == null || !TargetPattern.covers(target, conflict.target())) {
            findings.add(new MergeFinding(Code.MERGED_TARGET_MISSES_CONFLICT, winner.policyId(),
                    "The merged rule's target " + target + " does not cover " + conflict.target()
                            + ", the target the conflict is about."));
        }
    }

    /** What is wrong with {@code kind} for this loser, if anything; at most one finding per loser. */
    private static Optional<MergeFinding> loserFinding(PolicyRule winner, PolicyRule loser,
                                                                 LoserAction.Kind kind) {
        LoserAction.Kind expected = expectedAction(winner, loser);
        if (kind == expected) {
            return Optional.empty();
        }
        String rule = describe(loser);
        String id = loser.policyId();
        boolean stricter = isStricter(loser.effect(), winner.effect());
        boolean winnerCoversIt = TargetPattern.covers(winner.target(), loser.target());
        if (kind == LoserAction.Kind.REMOVE && stricter && !winnerCoversIt) {
            return finding(Code.STRICTER_LOSER_REMOVED, id, "The merge removes " + rule + ", which is stricter than"
                    + " the winner " + describe(winner) + " and reaches names the winner does not; removing it would"
                    + " let through what it " + pastTense(loser.effect()) + " outside " + winner.target() + ".");
        }
        if (loser.effect() == winner.effect()) {
            return finding(Code.AGREEING_LOSER_CHANGED, id, "The merge would " + verb(kind) + " " + rule
                    + ", which agrees with the winner " + describe(winner) + "; it should be kept.");
        }
        return switch (expected) {
            case KEEP -> finding(Code.DISJOINT_LOSER_CHANGED, id, "The merge would " + verb(kind) + " " + rule
                    + ", whose target does not overlap the winner's " + winner.target() + "; it should be kept.");
            case NARROW -> kind == LoserAction.Kind.KEEP
                    ? finding(Code.CONTRADICTING_LOSER_KEPT, id, "The merge keeps " + rule + ", which still"
                            + " contradicts the winner " + describe(winner) + " on " + winner.target()
                            + "; it should be narrowed to leave " + winner.target() + " out.")
                    : finding(Code.BROADER_LOSER_REMOVED, id, "The merge removes " + rule + ", which is broader than"
                            + " the winner's " + winner.target() + "; it should be narrowed, since outside "
                            + winner.target() + " nobody contradicted it.");
            case REMOVE -> kind == LoserAction.Kind.KEEP
                    ? finding(Code.CONTRADICTING_LOSER_KEPT, id, "The merge keeps " + rule + ", which contradicts"
                            + " the winner " + describe(winner) + " everywhere it applies; it should be removed.")
                    : finding(Code.LOSER_NARROWED_TO_NOTHING, id, "The merge narrows " + rule + ", but the winner's "
                            + winner.target() + " covers all of it, so nothing would be left; it should be removed.");
        };
    }

    private static Optional<MergeFinding> finding(Code code, String policyId, String message) {
        return Optional.of(new MergeFinding(code, policyId, message));
    }

    /** The first action given to each losing rule; duplicates and strangers are reported elsewhere. */
    private static Map<String, LoserAction> actionsByLoser(SuggestedMerge merge) {
        Map<String, LoserAction> byId = new LinkedHashMap<>();
        for (LoserAction action : nullSafe(merge.loserActions())) {
            byId.putIfAbsent(action.policyId(), action);
        }
        return byId;
    }

    private static <T> List<T> nullSafe(List<T> list) {
        return list == null ? List.of() : list.stream().filter(Objects::nonNull).toList();
    }

    private static String describe(PolicyRule rule) {
        return describe(RuleRef.of(rule));
    }

    private static String describe(RuleRef rule) {
        if (rule == null) {
            return "no rule";
        }
        return rule.policyId() + " (" + layer(rule.scope()) + " " + words(rule.effect()) + " on " + rule.target()
                + ")";
    }

    private static String policyIds(List<RuleRef> rules) {
        if (rules == null || rules.isEmpty()) {
            return "none";
        }
        return String.join(", ", rules.stream().map(r -> r == null ? "null" : r.policyId()).toList());
    }

    private static String owner(String scopeId) {
        return scopeId == null ? "no owner (the platform)" : "'" + scopeId + "'";
    }

    private static String layer(Scope scope) {
        return scope == null ? "unknown" : scope.wireName().replace('_', ' ');
    }

    private static String words(Effect effect) {
        return effect == null ? "nothing" : effect.wireName().replace('_', ' ');
    }

    private static String pastTense(Effect effect) {
        return switch (effect) {
            case ALLOW -> "allowed";
            case DENY -> "denied";
            case REQUIRE_APPROVAL -> "held for approval";
        };
    }

    private static String verb(LoserAction.Kind kind) {
        return switch (kind) {
            case KEEP -> "keep";
            case NARROW -> "narrow";
            case REMOVE -> "remove";
        };
    }
}
