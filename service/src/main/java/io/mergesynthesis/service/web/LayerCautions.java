package io.mergesynthesis.service.web;

import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the policy engine's winner overrides a contradicting rule of a stronger layer (a member rule over the org's,
 * say). The engine decides, and a merge keeps its decision, so this is no reason to refuse a merge; but it is the
 * case where a merge that keeps the winner also undoes what a stronger layer asked for, and an admin should know.
 */
final class LayerCautions {

    private LayerCautions() {
    }

    /** One sentence per overridden stronger rule; none when the winner is the strongest rule it contradicts. */
    static List<String> of(List<ConflictDetail.RuleRow> rules) {
        Optional<PolicyRule> winner = rules.stream().filter(ConflictDetail.RuleRow::winner).findFirst()
                .flatMap(LayerCautions::rule);
        if (winner.isEmpty()) {
            return List.of();
        }
        List<String> cautions = new ArrayList<>();
        for (ConflictDetail.RuleRow row : rules) {
            if (row.winner()) {
                continue;
            }
            rule(row).filter(loser -> overrides(winner.get(), loser))
                    .ifPresent(loser -> cautions.add(sentence(winner.get(), loser)));
        }
        return List.copyOf(cautions);
    }

    /** A stronger layer's rule that contradicts the winner where the two overlap. */
    private static boolean overrides(PolicyRule winner, PolicyRule loser) {
        return loser.scope().isAbove(winner.scope())
                && MergeCheck.expectedAction(winner, loser) != LoserAction.Kind.KEEP;
    }

    private static String sentence(PolicyRule winner, PolicyRule loser) {
        return "The policy engine chose " + describe(winner) + " over " + describe(loser) + ", although the "
                + layer(loser.scope()) + " layer is stronger than the " + layer(winner.scope()) + " layer. A merge"
                + " that keeps the winner overrides the " + layer(loser.scope()) + " rule here: make sure that is"
                + " what your policies mean before you accept it.";
    }

    private static String describe(PolicyRule rule) {
        return rule.policyId() + " (" + layer(rule.scope()) + " rule: " + words(rule.effect()) + " on "
                + rule.target() + ")";
    }

    /** The row as a rule, or empty when the engine sent a layer, effect or target this page cannot read. */
    private static Optional<PolicyRule> rule(ConflictDetail.RuleRow row) {
        try {
            if (row.scope() == null || row.effect() == null || row.target() == null) {
                return Optional.empty();
            }
            return Optional.of(new PolicyRule(row.policyId(), Scope.valueOf(row.scope().toUpperCase(Locale.ROOT)),
                    row.scopeId(), Effect.valueOf(row.effect().toUpperCase(Locale.ROOT)), row.target()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String layer(Scope scope) {
        return scope.wireName().replace('_', ' ');
    }

    private static String words(Effect effect) {
        return effect.wireName().replace('_', ' ');
    }
}
