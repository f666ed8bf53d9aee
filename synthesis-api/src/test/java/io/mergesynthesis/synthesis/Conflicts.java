package io.mergesynthesis.synthesis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Generated conflicts for the check's property tests. Targets come from a small alphabet so that generated rules
 * nest, overlap and miss each other often. The winner always covers the conflict's target (the engine chose it
 * there); losers may cover it, be covered by the winner, or miss the winner entirely, which takes in all five
 * shapes the golden files lock and the combinations between them.
 *
 * <p>Every conflict comes from a seed, so a failure names the seed that reproduces it.
 */
final class Conflicts {

    static final UUID ORG = UUID.fromString("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f");
    private static final List<String> SEGMENTS = List.of("jira", "github", "x");

    /** Seeds start here unless {@code -Dmergecheck.seed=N} asks for another run of the same size. */
    static final long FIRST_SEED = Long.getLong("mergecheck.seed", 20261125L);

    private Conflicts() {
    }

    /** An exact name of one to three segments, such as {@code jira.x}. */
    static String name(Random random) {
        int segments = 1 + random.nextInt(3);
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            parts.add(SEGMENTS.get(random.nextInt(SEGMENTS.size())));
        }
        return String.join(".", parts);
    }

    /** Any target: {@code *} (one in seven), {@code name.*} or an exact name. */
    static String target(Random random) {
        int pick = random.nextInt(7);
        if (pick == 0) {
            return "*";
        }
        return pick <= 3 ? name(random) + ".*" : name(random);
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

    static <T> T pick(Random random, List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    static <E extends Enum<E>> E pick(Random random, Class<E> type) {
        E[] values = type.getEnumConstants();
        return values[random.nextInt(values.length)];
    }

    /** The conflict for {@code seed}: zero to four losers, the winner at any position. */
    static ConflictSnapshot conflict(long seed) {
        Random random = new Random(seed);
        String target = random.nextInt(5) == 0 ? name(random) + ".*" : name(random);
        PolicyRule winner = rule("w-1", pick(random, Scope.class), pick(random, Effect.class),
                pick(random, coveringTargets(target)));
        List<PolicyRule> rules = new ArrayList<>();
        int losers = random.nextInt(5);
        for (int i = 0; i < losers; i++) {
            String loserTarget = random.nextInt(5) < 3 ? pick(random, coveringTargets(target)) : target(random);
            rules.add(rule("l-" + (i + 1), pick(random, Scope.class), pick(random, Effect.class), loserTarget));
        }
        rules.add(random.nextInt(rules.size() + 1), winner);
        return new ConflictSnapshot(new UUID(seed, seed), ORG, "k-" + seed, pick(random, Action.class), target,
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
