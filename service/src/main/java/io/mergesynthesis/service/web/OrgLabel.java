package io.mergesynthesis.service.web;

import java.util.Map;
import java.util.UUID;

/**
 * How a page names an org: by the display name the platform gave it, with its id on hover, or by its id while it
 * has none. The template {@code org-label} renders it; its members have names no other page value uses, so that a
 * label inside a row never reads the row's own fields.
 */
record OrgLabel(String labelId, String labelName) {

    static OrgLabel of(UUID org, String name) {
        return new OrgLabel(org.toString(), name);
    }

    static OrgLabel of(UUID org, Map<UUID, String> names) {
        return of(org, names.get(org));
    }

    boolean labelNamed() {
        return labelName != null;
    }

    /** The name, or the id: for the words around a control ("View inbox of ..."). */
    String labelText() {
        return labelName != null ? labelName : labelId;
    }
}
