package io.mergesynthesis.synthesis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * Generated conflicts for property tests. Targets come from a small alphabet so that generated rules nest, overlap
 * and miss each other often. The winner always covers the conflict's target (the engine chose it there); losers
 * may cover it, be covered by the winner, or miss the winner entirely, which takes in all five shapes the golden
 * files lock and the combinations between them.
 */
final class Conflicts {

    static final UUID ORG = UUID.fromString("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f");
    private static final List<String> SEGMENTS = List.of("jira", "github", "x");

    private Conflicts() {
    }

    /** An exact name of one to three segments, such as {@code jira.x}. */
    static Arbitrary<String> names() {
        return Arbitraries.of(SEGMENTS).list().ofMinSize(1).ofMaxSize(3).map(parts -> String.join(".", parts));
    }

    /** Any target: {@code *}, {@code name.*} or an exact name. */
    static Arbitrary<String> targets() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just("*")),
                Tuple.of(3, names().map(name -> name + ".*")),
                Tuple.of(3, names()));
    }

    /** Every target that covers {@code inner}, {@code inner} included. */
    static List<String> coveringTargets(String inner) {
        List<String> out = new ArrayList<>();
        out.add("*");
        String base = inner.endsWith(".*") ? inner.substring(0, inner.length() - 2) : inner;
        if (!inner.equals("*")) {
            String[] parts = base.split("\\.");
            for (int i = 1; i < parts.length; i++) {
                out.add(String.join(".", Arrays.copyOf(parts, i)) + ".*");
            }
            out.add(base + ".*");
            if (!inner.endsWith(".*")) {
                out.add(inner);
            }
        }
        return out.stream().filter(t -> TargetPattern.covers(t, inner)).distinct().toList();
    }

    static Arbitrary<ConflictSnapshot> conflicts() {
        Arbitrary<String> conflictTarget = Arbitraries.frequencyOf(
                Tuple.of(4, names()),
                Tuple.of(1, names().map(name -> name + ".*")));
        return conflictTarget.flatMap(target -> {
            Arbitrary<PolicyRule> winner = Combinators.combine(
                    Arbitraries.of(coveringTargets(target)), Arbitraries.of(Scope.class), Arbitraries.of(Effect.class))
                    .as((t, scope, effect) -> rule("w-1", scope, effect, t));
            Arbitrary<List<PolicyRule>> losers = Combinators.combine(
                            Arbitraries.frequencyOf(
                                    Tuple.of(3, Arbitraries.of(coveringTargets(target))),
                                    Tuple.of(2, targets())),
                            Arbitraries.of(Scope.class), Arbitraries.of(Effect.class))
                    .as((t, scope, effect) -> rule("l", scope, effect, t))
                    .list().ofMinSize(0).ofMaxSize(4);
            Arbitrary<Tuple2<PolicyRule, List<PolicyRule>>> pair =
                    Combinators.combine(winner, losers).as(Tuple::of);
            return Combinators.combine(pair, Arbitraries.of(Action.class), Arbitraries.integers().between(0, 4))
                    .as((p, action, winnerAt) -> conflict(target, action, p.get1(), p.get2(), winnerAt));
        });
    }

    private static ConflictSnapshot conflict(String target, Action action, PolicyRule winner, List<PolicyRule> losers,
                                             int winnerAt) {
        List<PolicyRule> rules = new ArrayList<>();
        for (int i = 0; i < losers.size(); i++) {
            PolicyRule l = losers.get(i);
            rules.add(rule("l-" + (i + 1), l.scope(), l.effect(), l.target()));
        }
        rules.add(Math.min(winnerAt, rules.size()), winner);
        return new ConflictSnapshot(UUID.nameUUIDFromBytes((target + rules).getBytes()), ORG, "k", action, target,
                rules, winner.policyId(), Instant.parse("2026-11-20T10:15:00Z"));
    }

    static PolicyRule rule(String id, Scope scope, Effect effect, String target) {
        String owner = switch (scope) {
            case PLATFORM -> null;
            case ORG -> ORG.toString();
            case ORG_UNIT -> "unit-" + id;
            case MEMBER -> "member-" + id;
        };
        return new PolicyRule(id, scope, owner, effect, target);
    }
}
