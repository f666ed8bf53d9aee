package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.FreeText;

/** What a resolution note may be, for the API and the web inbox alike. */
public final class ResolutionNote {

    /** The longest note kept, in characters (UTF-16 code units, as Java and JSON count them). */
    public static final int MAX_LENGTH = 2000;

    private ResolutionNote() {
    }

    /** What is wrong with a note, or null when it can be kept as it is. */
    public static String problem(String note) {
        if (note.length() > MAX_LENGTH) {
            return "is " + note.length() + " characters long; at most " + MAX_LENGTH + " are kept";
        }
        return FreeText.problem(note);
    }
}
