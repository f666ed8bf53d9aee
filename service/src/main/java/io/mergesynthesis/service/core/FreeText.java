package io.mergesynthesis.service.core;

import java.util.Locale;

/**
 * What text people write may hold: a resolution note, a search. Unlike an identifier it is read, not compared,
 * so it keeps every assigned character, format characters too (the joiners inside emoji and Persian words,
 * direction marks in mixed scripts); it refuses only what is no text: control characters other than the line
 * feed and the tab, unassigned code points, and what PostgreSQL cannot keep ({@link Storable}).
 */
public final class FreeText {

    private FreeText() {
    }

    /** Why {@code text} cannot be kept as written text, or null when it can. */
    public static String problem(String text) {
        String unstorable = Storable.textProblem(text);
        if (unstorable != null) {
            return unstorable;
        }
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            int type = Character.getType(c);
            if (type == Character.CONTROL && c != '\n' && c != '\t') {
                return String.format(Locale.ROOT, "must not contain control characters other than line feed "
                        + "and tab (found %s) at character %d%s", IdentifierText.name(c), i,
                        c == '\r' ? "; end lines with \\n alone" : "");
            }
            if (type == Character.UNASSIGNED) {
                return String.format(Locale.ROOT, "must not contain unassigned code points (found %s) at "
                        + "character %d", IdentifierText.name(c), i);
            }
            i += Character.charCount(c);
        }
        return null;
    }
}
