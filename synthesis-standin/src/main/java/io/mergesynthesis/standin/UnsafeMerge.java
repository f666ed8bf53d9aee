package io.mergesynthesis.standin;

import java.util.Locale;

/**
 * A well-formed but unsafe merge the stand-in can answer on purpose, one for each way a model's merge can break
 * what the product promises. Each changes the stand-in's correct answer in one place; when the conflict offers
 * nothing to break that way (no loser, a winner already on {@code *}), the answer stays correct.
 */
public enum UnsafeMerge {
    /** The resolved effect and the merged rule's effect turned round: allow becomes deny, anything else
     * allow. */
    FLIP_EFFECT,
    /** The merged rule's target widened to {@code *}. */
    WIDEN_TARGET,
    /** The merged rule handed to another owner: a scope_id that is not the winner's. */
    FOREIGN_OWNER,
    /** The merged rule is a losing rule, whole (scope, owner, effect, target), based on it. */
    BASED_ON_LOSER,
    /** A losing rule that contradicts the winner where they overlap is kept instead of narrowed or removed. */
    KEEP_CONTRADICTING_LOSER,
    /** A losing rule stricter than the winner and reaching names the winner does not is removed. */
    REMOVE_STRICTER_LOSER;

    /** The name on the command line: {@code flip_effect}, {@code widen_target}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static UnsafeMerge fromLabel(String label) {
        for (UnsafeMerge kind : values()) {
            if (kind.label().equals(label)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown unsafe merge '" + label + "' (known: flip_effect, widen_target,"
                + " foreign_owner, based_on_loser, keep_contradicting_loser, remove_stricter_loser)");
    }
}
