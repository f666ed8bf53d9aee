package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Storable;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.synthesis.Action;
import java.util.Arrays;

/**
 * Which of an org's conflicts a page lists; a null field does not filter.
 *
 * @param action a conflict's action by its wire name ({@code tool_call}, ...)
 * @param prefix the start of a target, an engine key or a rule's policy id, matched exactly (case included)
 * @param unresolvedOnly only conflicts not yet resolved (open or acknowledged): what the web inbox opens on
 */
public record InboxFilter(InboxStatus inboxStatus, SynthesisState synthesisState, String action, String prefix,
                          boolean unresolvedOnly) {

    public static final InboxFilter NONE = new InboxFilter(null, null, null, null);

    public InboxFilter(InboxStatus inboxStatus, SynthesisState synthesisState, String action, String prefix) {
        this(inboxStatus, synthesisState, action, prefix, false);
    }

    /** The longest search text taken, in characters: longer than any target or key worth typing. */
    public static final int MAX_PREFIX_LENGTH = 200;

    public InboxFilter(InboxStatus inboxStatus, SynthesisState synthesisState) {
        this(inboxStatus, synthesisState, null, null);
    }

    public boolean filters() {
        return inboxStatus != null || synthesisState != null || action != null || prefix != null || unresolvedOnly;
    }

    /** The action with this wire name, if there is one. */
    public static boolean knownAction(String wireName) {
        return Arrays.stream(Action.values()).anyMatch(a -> a.wireName().equals(wireName));
    }

    /** Every action's wire name, comma separated, for messages that list what is allowed. */
    public static String actionNames() {
        return String.join(", ", Arrays.stream(Action.values()).map(Action::wireName).toList());
    }

    /** What is wrong with a search text, or null when it can be searched for as it is. */
    public static String prefixProblem(String prefix) {
        if (prefix.length() > MAX_PREFIX_LENGTH) {
            return "is " + prefix.length() + " characters long; at most " + MAX_PREFIX_LENGTH + " are searched for";
        }
        return Storable.textProblem(prefix);
    }
}
