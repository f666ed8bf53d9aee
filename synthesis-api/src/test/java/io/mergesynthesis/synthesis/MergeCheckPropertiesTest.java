package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The check against generated conflicts (see {@link Conflicts}): the stub's merge passes, every single change to a
 * passing merge is refused, and whatever passes grants no new access by the reading of an evaluator written apart
 * from the check. Each property runs over thousands of seeded conflicts; a failure names its seed.
 */
class MergeCheckPropertiesTest {

    private static final int CONFLICTS = 5_000;
    private static final ResolvedModel MODEL =
            new ResolvedModel(Router.MERGE_SYNTHESIS, StubRouter.PROVIDER, StubRouter.MODEL);
    private static final StubSynthesizer STUB =
            new StubSynthesizer(Clock.fixed(Instant.parse("2026-11-20T12:00:00Z"), ZoneOffset.UTC));

    @Test
    void theStubsMergeAlwaysPasses() {
        for (long seed = Conflicts.FIRST_SEED; seed < Conflicts.FIRST_SEED + CONFLICTS; seed++) {
            ConflictSnapshot conflict = Conflicts.conflict(seed);
            SuggestedMerge merge = stubMerge(conflict);

            assertThat(MergeCheck.check(conflict, merge)).as("seed %d: %s", seed, conflict).isEmpty();
            assertThat(ReferenceEvaluator.newlyPermitted(conflict, merge)).as("seed %d: %s", seed, conflict)
                    .isEmpty();
        }
    }

    @Test
    void everySingleChangeToAPassingMergeIsRefused() {
        int mutations = 0;
        for (long seed = Conflicts.FIRST_SEED; seed < Conflicts.FIRST_SEED + CONFLICTS; seed++) {
            ConflictSnapshot conflict = Conflicts.conflict(seed);
            for (Mutation mutation : mutations(conflict, stubMerge(conflict))) {
                mutations++;
                assertThat(MergeCheck.check(conflict, mutation.merge()))
                        .as("seed %d, %s of %s", seed, mutation.what(), conflict)
                        .isNotEmpty();
            }
        }
        assertThat(mutations).as("mutations tried").isGreaterThan(CONFLICTS * 10);
    }

    @Test
    void whatPassesGrantsNoNewAccess() {
        int passed = 0;
        for (long seed = Conflicts.FIRST_SEED; seed < Conflicts.FIRST_SEED + 4 * CONFLICTS; seed++) {
            ConflictSnapshot conflict = Conflicts.conflict(seed);
            SuggestedMerge merge = anyMerge(conflict, new Random(~seed));
            if (MergeCheck.check(conflict, merge).isEmpty()) {
                passed++;
                assertThat(ReferenceEvaluator.newlyPermitted(conflict, merge))
                        .as("seed %d: names more permitted after a merge the check passed: %s", seed, merge)
                        .isEmpty();
            }
        }
        // The random merges must reach the passing side often enough for the property to say something.
        assertThat(passed).as("random merges the check passed").isGreaterThan(CONFLICTS / 10);
    }

    @Test
    void everyLosersActionIsTheOneTheCheckExpects() {
        for (long seed = Conflicts.FIRST_SEED; seed < Conflicts.FIRST_SEED + CONFLICTS; seed++) {
            ConflictSnapshot conflict = Conflicts.conflict(seed);
            SuggestedMerge merge = stubMerge(conflict);
            PolicyRule winner = conflict.winner().orElseThrow();
            for (int i = 0; i < conflict.losers().size(); i++) {
                assertThat(merge.loserActions().get(i).action()).as("seed %d", seed)
                        .isEqualTo(MergeCheck.expectedAction(winner, conflict.losers().get(i)));
            }
        }
    }

    /**
     * A merge with random actions and a merged rule picked from targets near the conflict's, with the winner's
     * effect three times in four.
     */
    private static SuggestedMerge anyMerge(ConflictSnapshot conflict, Random random) {
        PolicyRule winner = conflict.winner().orElseThrow();
        List<String> targets = new ArrayList<>(Conflicts.coveringTargets(winner.target()));
        targets.add(conflict.target());
        conflict.rules().forEach(rule -> targets.add(rule.target()));
        List<LoserAction> actions = new ArrayList<>();
        for (PolicyRule loser : conflict.losers()) {
            actions.add(new LoserAction(loser.policyId(), Conflicts.pick(random, LoserAction.Kind.class), "generated"));
        }
        Effect effect = random.nextInt(4) == 0 ? Conflicts.pick(random, Effect.class) : winner.effect();
        MergedRule merged = new MergedRule(winner.scope(), winner.scopeId(), effect,
                Conflicts.pick(random, targets), winner.policyId());
        return withMerged(withActions(stubMerge(conflict), actions), merged);
    }

    record Mutation(String what, SuggestedMerge merge) {
    }

    /** Every merge one change away from {@code merge}: each field the check guards, each loser's action. */
    static List<Mutation> mutations(ConflictSnapshot conflict, SuggestedMerge merge) {
        PolicyRule winner = conflict.winner().orElseThrow();
        MergedRule rule = merge.mergedRule();
        List<Mutation> out = new ArrayList<>();
        for (Effect effect : Effect.values()) {
            if (effect != winner.effect()) {
                out.add(new Mutation("resolved_effect " + effect, copy(merge, m -> withResolved(m, effect))));
                out.add(new Mutation("merged effect " + effect, copy(merge, m -> withMerged(m,
                        new MergedRule(rule.scope(), rule.scopeId(), effect, rule.target(), rule.basedOnPolicyId())))));
            }
        }
        for (String target : nearbyTargets(conflict, winner)) {
            if (!target.equals(rule.target())) {
                out.add(new Mutation("merged target " + target, copy(merge, m -> withMerged(m,
                        new MergedRule(rule.scope(), rule.scopeId(), rule.effect(), target, rule.basedOnPolicyId())))));
            }
        }
        for (Scope scope : Scope.values()) {
            if (scope != rule.scope()) {
                out.add(new Mutation("merged scope " + scope, copy(merge, m -> withMerged(m,
                        new MergedRule(scope, rule.scopeId(), rule.effect(), rule.target(), rule.basedOnPolicyId())))));
            }
        }
        for (String owner : new String[] {null, "another-org", String.valueOf(rule.scopeId()) + "-x"}) {
            if (!Objects.equals(owner, rule.scopeId())) {
                out.add(new Mutation("merged owner " + owner, copy(merge, m -> withMerged(m,
                        new MergedRule(rule.scope(), owner, rule.effect(), rule.target(), rule.basedOnPolicyId())))));
            }
        }
        for (PolicyRule loser : conflict.losers()) {
            out.add(new Mutation("based on " + loser.policyId(), copy(merge, m -> withMerged(m,
                    new MergedRule(rule.scope(), rule.scopeId(), rule.effect(), rule.target(), loser.policyId())))));
        }
        List<LoserAction> actions = merge.loserActions();
        for (int i = 0; i < actions.size(); i++) {
            int at = i;
            for (LoserAction.Kind kind : LoserAction.Kind.values()) {
                if (kind != actions.get(i).action()) {
                    List<LoserAction> changed = new ArrayList<>(actions);
                    changed.set(at, new LoserAction(actions.get(at).policyId(), kind, actions.get(at).detail()));
                    out.add(new Mutation(actions.get(at).policyId() + " " + kind,
                            copy(merge, m -> withActions(m, changed))));
                }
            }
            List<LoserAction> dropped = new ArrayList<>(actions);
            dropped.remove(at);
            out.add(new Mutation("no action for " + actions.get(at).policyId(),
                    copy(merge, m -> withActions(m, dropped))));
        }
        return out;
    }

    /** Targets wider and narrower than the winner's, and those around the conflict's target. */
    private static List<String> nearbyTargets(ConflictSnapshot conflict, PolicyRule winner) {
        List<String> targets = new ArrayList<>(Conflicts.coveringTargets(winner.target()));
        targets.addAll(Conflicts.coveringTargets(conflict.target()));
        targets.add(conflict.target());
        targets.add(conflict.target() + ".deeper");
        if (winner.target().endsWith(".*")) {
            targets.add(winner.target().substring(0, winner.target().length() - 2) + ".narrower");
        }
        targets.add("elsewhere.*");
        return targets.stream().distinct().toList();
    }

    private static SuggestedMerge stubMerge(ConflictSnapshot conflict) {
        try {
            return STUB.synthesize(conflict, MODEL);
        } catch (SynthesisException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SuggestedMerge copy(SuggestedMerge merge, UnaryOperator<SuggestedMerge> change) {
        return change.apply(merge);
    }

    private static SuggestedMerge withResolved(SuggestedMerge m, Effect effect) {
        return new SuggestedMerge(m.schemaVersion(), m.conflictId(), m.winner(), m.losers(), effect, m.mergedRule(),
                m.loserActions(), m.rationale(), m.confidence(), m.producedBy(), m.generatedAt());
    }

    private static SuggestedMerge withMerged(SuggestedMerge m, MergedRule rule) {
        return new SuggestedMerge(m.schemaVersion(), m.conflictId(), m.winner(), m.losers(), m.resolvedEffect(), rule,
                m.loserActions(), m.rationale(), m.confidence(), m.producedBy(), m.generatedAt());
    }

    private static SuggestedMerge withActions(SuggestedMerge m, List<LoserAction> actions) {
        return new SuggestedMerge(m.schemaVersion(), m.conflictId(), m.winner(), m.losers(), m.resolvedEffect(),
                m.mergedRule(), actions, m.rationale(), m.confidence(), m.producedBy(), m.generatedAt());
    }
}
