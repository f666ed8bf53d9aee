package io.mergesynthesis.synthesis;

import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import io.mergesynthesis.synthesis.SuggestedMerge.RuleRef;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * The deterministic synthesizer, the default: it calls no model provider and costs nothing. It keeps the
 * winner's rule as the merged rule and decides each losing rule from effects and target patterns alone, so the
 * same conflict and clock always give the same merge. It holds no mutable state and is thread-safe.
 */
public final class StubSynthesizer implements MergeSynthesizer {

    public static final String NAME = "stub";

    private final Clock clock;

    public StubSynthesizer(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model) throws SynthesisException {
        PolicyRule winner = conflict.winner().orElseThrow(() -> new SynthesisException(
                "conflict " + conflict.conflictId() + " names winner_policy_id " + conflict.winnerPolicyId()
                        + ", but none of its " + conflict.rules().size() + " rules has that policy id"));
        List<PolicyRule> losers = conflict.losers();
        List<LoserAction> actions = losers.stream().map(loser -> decide(winner, loser)).toList();

        return new SuggestedMerge(
                SuggestedMerge.SCHEMA_VERSION,
                conflict.conflictId(),
                RuleRef.of(winner),
                losers.stream().map(RuleRef::of).toList(),
                winner.effect(),
                new MergedRule(winner.scope(), winner.scopeId(), winner.effect(), winner.target(), winner.policyId()),
                actions,
                rationale(conflict.action(), winner, losers, actions),
                null, // the stub has no calibrated confidence to offer
                new ProducedBy(NAME, model.provider(), model.model()),
                clock.instant());
    }

    /**
     * What to do with one losing rule, and why in words. A rule that agrees with the winner is never touched, and
     * a broader loser is narrowed rather than removed, because outside the winner's target it still says
     * something nobody contradicted.
     */
    static LoserAction decide(PolicyRule winner, PolicyRule loser) {
        String id = loser.policyId();
        // The action is the check's: one rule decides what is right, so the stub's merges always pass it.
        return switch (MergeCheck.expectedAction(winner, loser)) {
            case KEEP -> new LoserAction(id, LoserAction.Kind.KEEP, loser.effect() == winner.effect()
                    ? "same effect (" + words(winner.effect()) + ") as the winner " + winner.policyId()
                            + ", no contradiction"
                    : "targets do not overlap (" + loser.target() + " and " + winner.target() + ")");
            case NARROW -> new LoserAction(id, LoserAction.Kind.NARROW,
                    "exclude " + winner.target() + " from " + loser.target()
                            + ", leaving that target to the winner " + winner.policyId());
            case REMOVE -> new LoserAction(id, LoserAction.Kind.REMOVE,
                    "fully shadowed by " + winner.policyId() + " (" + describe(winner) + ")");
        };
    }

    private static String rationale(Action action, PolicyRule winner, List<PolicyRule> losers,
                                     List<LoserAction> actions) {
        String who = "The " + layer(winner) + " rule " + winner.policyId() + " (" + describe(winner) + ")";
        String stays = "So " + plural(action) + " on " + winner.target() + " stay " + outcome(winner.effect());
        if (losers.isEmpty()) {
            return who + " is the only rule involved. " + stays + "; nothing else changes.";
        }
        List<String> beaten = losers.stream()
                .map(l -> "the " + layer(l) + " rule " + l.policyId() + " (" + describe(l) + ")")
                .toList();
        List<String> changes = actions.stream()
                .map(a -> a.policyId() + " is " + pastTense(a.action()))
                .toList();
        return who + " wins over " + join(beaten) + ". " + stays + "; " + join(changes) + ".";
    }

    private static String describe(PolicyRule rule) {
        return words(rule.effect()) + " on " + rule.target();
    }

    private static String layer(PolicyRule rule) {
        return rule.scope().wireName().replace('_', ' ');
    }

    private static String words(Effect effect) {
        return effect.wireName().replace('_', ' ');
    }

    private static String plural(Action action) {
        return switch (action) {
            case TOOL_CALL -> "tool calls";
            case DATA_EXPORT -> "data exports";
            case KNOWLEDGE_QUERY -> "knowledge queries";
        };
    }

    private static String outcome(Effect effect) {
        return switch (effect) {
            case ALLOW -> "allowed";
            case DENY -> "denied";
            case REQUIRE_APPROVAL -> "subject to approval";
        };
    }

    private static String pastTense(LoserAction.Kind kind) {
        return switch (kind) {
            case KEEP -> "kept";
            case NARROW -> "narrowed";
            case REMOVE -> "removed";
        };
    }

    /** "a", "a and b", "a, b and c". */
    private static String join(List<String> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.get(parts.size() - 1);
    }
}
