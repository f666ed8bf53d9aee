package io.mergesynthesis.service.core;

import java.util.Locale;

/**
 * The display name the platform gives an org. It is shown wherever the org's id would be, so it is held to what
 * reads as one line of text: 1 to {@value #MAX_LENGTH} characters, no control characters, no space at either
 * end. The id stays the org's identity; a name only labels it.
 */
public record OrgName(String text) {

    public static final int MAX_LENGTH = 80;

    public OrgName {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("name is required: 1 to " + MAX_LENGTH + " characters");
        }
        if (!text.equals(text.strip())) {
            throw new IllegalArgumentException("name must not begin or end with a space");
        }
        int length = text.codePointCount(0, text.length());
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("name is " + length + " characters long; at most " + MAX_LENGTH
                    + " are allowed");
        }
        int control = text.codePoints().filter(OrgName::isControl).findFirst().orElse(-1);
        if (control >= 0) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "name must not contain control characters (found U+%04X)", control));
        }
    }

    /** C0, DEL and C1 controls, and the line and paragraph separators, which break a line where none should be. */
    private static boolean isControl(int c) {
        return Character.isISOControl(c) || c == 0x2028 || c == 0x2029;
    }
}
