package io.mergesynthesis.service.core;

/**
 * The display name the platform gives an org. It is shown wherever the org's id would be, so it is held to what
 * reads as one line of text, 1 to {@value #MAX_LENGTH} characters, and to the rules of {@link IdentifierText}:
 * two orgs whose names look alike on a page would be mistaken for each other. The id stays the org's identity;
 * a name only labels it.
 */
public record OrgName(String text) {

    public static final int MAX_LENGTH = 80;

    public OrgName {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("name is required: 1 to " + MAX_LENGTH + " characters");
        }
        int length = text.codePointCount(0, text.length());
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("name is " + length + " characters long; at most " + MAX_LENGTH
                    + " are allowed");
        }
        String problem = IdentifierText.problem(text);
        if (problem != null) {
            throw new IllegalArgumentException("name " + problem);
        }
    }
}
