package io.mergesynthesis.synthesis;

/**
 * Set reasoning over rule targets. A target is one of three forms: {@code *} (every name), a prefix pattern
 * such as {@code jira.*} (every name that starts with {@code jira.}), or an exact name such as
 * {@code jira.create_issue}. Anything else is read as an exact name, so the functions are total;
 * {@link #problem(String)} says whether a target is written in the grammar at all.
 *
 * <p>Because a prefix pattern always ends at a dot, two targets are either nested (one covers the other) or
 * disjoint; they never merely overlap. The stub's keep / narrow / remove decision relies on that.
 */
public final class TargetPattern {

    private static final String EVERYTHING = "*";
    private static final String PREFIX_SUFFIX = ".*";

    private TargetPattern() {
    }

    /** True when every name that {@code inner} matches is also matched by {@code outer} (equal targets included). */
    public static boolean covers(String outer, String inner) {
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

    /**
     * Why {@code target} is not a target, or null when it is one. The grammar: {@code *}, a name, or a name
     * followed by {@code .*}. A name is one or more segments joined by dots; a segment is one or more ASCII
     * letters, digits or {@code _ - : / @}.
     *
     * <p>Segments are non-empty so that every target has one reading here and in {@link #covers}: {@code .*}
     * or {@code jira..*} would otherwise be exact names that look like patterns.
     */
    public static String problem(String target) {
        if (target == null || target.isEmpty()) {
            return "is empty";
        }
        if (target.equals(EVERYTHING)) {
            return null;
        }
        String name = target.endsWith(PREFIX_SUFFIX)
                ? target.substring(0, target.length() - PREFIX_SUFFIX.length())
                : target;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isNameCharacter(c)) {
                return "has " + describe(c) + " at position " + (i + 1);
            }
        }
        if (name.isEmpty() || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
            return "has an empty segment (a leading, trailing or doubled dot)";
        }
        return null;
    }

    private static boolean isNameCharacter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-' || c == ':' || c == '/' || c == '@';
    }

    private static String describe(char c) {
        if (c == '*') {
            return "a * that is not the whole target nor its final .*";
        }
        if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
            return "a space";
        }
        if (c == '"' || c == '\'' || c == '`') {
            return "a quote";
        }
        if (c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')' || c == '<' || c == '>') {
            return "a bracket or brace (" + c + ")";
        }
        if (c < 0x80 && !Character.isISOControl(c)) {
            return "the character " + c;
        }
        return String.format("the character U+%04X", (int) c);
    }

    private static boolean isPrefix(String target) {
        return target.length() > PREFIX_SUFFIX.length() && target.endsWith(PREFIX_SUFFIX);
    }
}
