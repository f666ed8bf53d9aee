package io.mergesynthesis.service.web;

import java.util.UUID;

/** What a page accepts of the ids people and links send it. */
final class CanonicalIds {

    private CanonicalIds() {
    }

    /** A UUID in its canonical form only; anything else is null (and so "not found"). */
    static UUID uuid(String text) {
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(text);
            return id.toString().equalsIgnoreCase(text) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** As {@link #uuid}, for an id typed or pasted into a form: null-safe, spaces around it ignored. */
    static UUID typed(String text) {
        return text == null ? null : uuid(text.strip());
    }
}
