package io.mergesynthesis.synthesis;

import io.mergesynthesis.synthesis.SuggestedMerge.LoserAction;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A deliberately plain model of what applying a merge does, written apart from {@link MergeCheck} so that the two
 * can be compared. Applying a merge leaves the merged rule in the winner's place, and each loser kept, narrowed to
 * its target minus the winner's, or removed.
 *
 * <p>What a name is allowed is read pessimistically: where the winner covers a name, the winner decides it (the
 * engine said so); elsewhere any rule that covers the name might decide it, so the most permissive of them counts.
 * A name no rule covers falls to a default nobody here knows, so it counts as allowed. Over a finite set of names
 * that covers every pattern in the conflict, a merge grants new access if some name is more permitted after it
 * than before.
 */
final class ReferenceEvaluator {

    private static final int NO_RULE = 2;

    private ReferenceEvaluator() {
    }

    /** The names whose permission got wider, with their before and after; empty when the merge is safe. */
    static List<String> newlyPermitted(ConflictSnapshot conflict, SuggestedMerge merge) {
        PolicyRule winner = conflict.winner().orElseThrow();
        Map<String, LoserAction.Kind> actions = merge.loserActions().stream()
                .collect(Collectors.toMap(LoserAction::policyId, LoserAction::action, (a, b) -> a));
        List<String> wider = new ArrayList<>();
        for (String name : probeNames(conflict, merge)) {
            int before = before(conflict, winner, name);
            int after = after(conflict, winner, merge, actions, name);
            if (after > before) {
                wider.add(name + " (" + before + " -> " + after + ")");
            }
        }
        return wider;
    }

    private static int before(ConflictSnapshot conflict, PolicyRule winner, String name) {
        if (matches(winner.target(), name)) {
            return permission(winner.effect());
        }
        return mostPermissive(conflict.rules().stream()
                .filter(rule -> matches(rule.target(), name))
                .map(PolicyRule::effect).toList());
    }

    private static int after(ConflictSnapshot conflict, PolicyRule winner, SuggestedMerge merge,
                             Map<String, LoserAction.Kind> actions, String name) {
        List<Effect> standing = new ArrayList<>();
        if (matches(merge.mergedRule().target(), name)) {
            standing.add(merge.mergedRule().effect());
        }
        for (PolicyRule loser : conflict.losers()) {
            LoserAction.Kind kind = actions.getOrDefault(loser.policyId(), LoserAction.Kind.KEEP);
            boolean applies = switch (kind) {
                case KEEP -> matches(loser.target(), name);
                case NARROW -> matches(loser.target(), name) && !matches(winner.target(), name);
                case REMOVE -> false;
            };
            if (applies) {
                standing.add(loser.effect());
            }
        }
        return mostPermissive(standing);
    }

    private static int mostPermissive(List<Effect> effects) {
        return effects.isEmpty() ? NO_RULE : effects.stream().mapToInt(ReferenceEvaluator::permission).max().orElseThrow();
    }

    private static int permission(Effect effect) {
        return switch (effect) {
            case DENY -> 0;
            case REQUIRE_APPROVAL -> 1;
            case ALLOW -> 2;
        };
    }

    /** Name matching written out by hand, not through {@link TargetPattern}, so that a bug there shows here. */
    static boolean matches(String pattern, String name) {
        if (pattern.equals("*")) {
            return true;
        }
        if (pattern.endsWith(".*")) {
            String stem = pattern.substring(0, pattern.length() - 2);
            return name.length() > stem.length() + 1 && name.startsWith(stem + ".");
        }
        return pattern.equals(name);
    }

    /** For every pattern: a name inside it, names just outside it, and one name outside everything. */
    static Set<String> probeNames(ConflictSnapshot conflict, SuggestedMerge merge) {
        List<String> patterns = new ArrayList<>();
        patterns.add(conflict.target());
        conflict.rules().forEach(rule -> patterns.add(rule.target()));
        patterns.add(merge.mergedRule().target());
        Function<String, List<String>> around = pattern -> {
            if (pattern.equals("*")) {
                return List.of("probe");
            }
            if (pattern.endsWith(".*")) {
                String stem = pattern.substring(0, pattern.length() - 2);
                return List.of(stem, stem + ".probe", stem + ".probe.deeper", stem + "probe");
            }
            return List.of(pattern, pattern + ".probe");
        };
        Set<String> names = new LinkedHashSet<>();
        patterns.forEach(pattern -> names.addAll(around.apply(pattern)));
        names.add("elsewhere.entirely");
        return names;
    }
}
