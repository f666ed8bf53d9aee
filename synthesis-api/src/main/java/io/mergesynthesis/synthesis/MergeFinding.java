package io.mergesynthesis.synthesis;

import java.util.Locale;

/**
 * One way a suggested merge breaks a property the product promises, as {@link MergeCheck} found it.
 *
 * @param code     what is broken; its {@link Code#wireName()} is stable and safe to alert on
 * @param policyId the rule the finding is about, or {@code null} when it is about the merge as a whole
 * @param message  one sentence an admin can read, naming the rules involved
 */
public record MergeFinding(Code code, String policyId, String message) {

    /** The promises a stored merge keeps, in the order an admin reads them. */
    public enum Property {
        /** The merge answers this conflict: its ids and its list of actions match the conflict's rules. */
        MATCHES_THE_CONFLICT("matches the conflict: the same winner and losers, one action per losing rule"),
        /** The merged rule is the winner's: the same effect, layer, owner and target. */
        KEEPS_THE_WINNER("keeps the winner: the winner's effect, layer, owner and target"),
        /** Nobody may do after the merge what they could not do before it. */
        GRANTS_NO_NEW_ACCESS("grants no new access: nothing the rules denied or held for approval becomes allowed"),
        /** No rule that contradicts the winner on the winner's target stays as it is. */
        REMOVES_THE_CONFLICT("removes the conflict: no contradicting rule stays on the winner's target"),
        /** Rules the conflict does not need to touch stay untouched; broader rules are narrowed, not removed. */
        PRECISE("is precise: rules that agree or do not overlap are kept, broader rules are narrowed");

        private final String description;

        Property(String description) {
            this.description = description;
        }

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** What the property means, in words for an admin. */
        public String description() {
            return description;
        }
    }

    /** Every finding the check can report. The wire names are a contract: dashboards and SIEM rules use them. */
    public enum Code {
        CONFLICT_ID_MISMATCH(Property.MATCHES_THE_CONFLICT),
        WINNER_MISMATCH(Property.MATCHES_THE_CONFLICT),
        LOSERS_MISMATCH(Property.MATCHES_THE_CONFLICT),
        LOSER_ACTION_MISSING(Property.MATCHES_THE_CONFLICT),
        LOSER_ACTION_UNEXPECTED(Property.MATCHES_THE_CONFLICT),
        RESOLVED_EFFECT_CHANGED(Property.KEEPS_THE_WINNER),
        MERGED_EFFECT_CHANGED(Property.KEEPS_THE_WINNER),
        MERGED_RULE_NOT_THE_WINNER(Property.KEEPS_THE_WINNER),
        MERGED_SCOPE_CHANGED(Property.KEEPS_THE_WINNER),
        MERGED_OWNER_CHANGED(Property.KEEPS_THE_WINNER),
        MERGED_TARGET_NARROWED(Property.KEEPS_THE_WINNER),
        MERGED_TARGET_WIDENED(Property.GRANTS_NO_NEW_ACCESS),
        MERGED_TARGET_MISSES_CONFLICT(Property.GRANTS_NO_NEW_ACCESS),
        STRICTER_LOSER_REMOVED(Property.GRANTS_NO_NEW_ACCESS),
        CONTRADICTING_LOSER_KEPT(Property.REMOVES_THE_CONFLICT),
        AGREEING_LOSER_CHANGED(Property.PRECISE),
        DISJOINT_LOSER_CHANGED(Property.PRECISE),
        BROADER_LOSER_REMOVED(Property.PRECISE),
        LOSER_NARROWED_TO_NOTHING(Property.PRECISE);

        private final Property property;

        Code(Property property) {
            this.property = property;
        }

        public Property property() {
            return property;
        }

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code code: message}, the form that goes into an attempt's history and a repair request. */
    @Override
    public String toString() {
        return code.wireName() + ": " + message;
    }
}
