package io.mergesynthesis.synthesis;

/**
 * Set reasoning over rule targets. A target is one of three forms: {@code *} (every name), a prefix pattern
 * such as {@code jira.*} (every name that starts with {@code jira.}), or an exact name such as
 * {@code jira.create_issue}. Anything else is read as an exact name, so the functions are total.
 *
 * <p>Because a prefix pattern always ends at a dot, two targets are either nested (one covers the other) or
 * disjoint; they never merely overlap. The stub's keep / narrow / remove decision relies on that.
 */
final class TargetPattern {

    private static final String EVERYTHING = "*";
    private static final String PREFIX_SUFFIX = ".*";

    private TargetPattern() {
    }

    /** True when every name that {@code inner} matches is also matched by {@code outer} (equal targets included). */
    static boolean covers(String outer, String inner) {
        if (outer.equals(EVERYTHING)) {
            return true;
        }
        if (inner.equals(EVERYTHING)) {
            return false;
        }
        if (isPrefix(outer)) {
            // "jira.*" keeps its dot so that it covers "jira.x" and "jira.x.*" but not "jiraffe" or "jira".
            String prefix = outer.substring(0, outer.length() - 1);
            return inner.startsWith(prefix);
        }
        return outer.equals(inner);
    }

    /** True when {@code outer} covers {@code inner} and matches at least one name that {@code inner} does not. */
    static boolean strictlyCovers(String outer, String inner) {
        // Each set of names has exactly one spelling in this grammar, so "covers but differs" means "strictly".
        return covers(outer, inner) && !outer.equals(inner);
    }

    private static boolean isPrefix(String target) {
        return target.length() > PREFIX_SUFFIX.length() && target.endsWith(PREFIX_SUFFIX);
    }
}
