package io.mergesynthesis.service.core;

import java.util.Optional;

/**
 * Where an org's admins are with a conflict: the words of the {@code inbox_status} domain, each with the words a
 * person reads for it. Written only through the API and the web inbox, never by the worker.
 */
public enum InboxStatus implements WireName {
    OPEN("open", "open"),
    ACKNOWLEDGED("acknowledged", "acknowledged"),
    /** Final: the conflict carries a {@link Resolution}. */
    RESOLVED("resolved", "resolved");

    private final String wireName;
    private final String label;

    InboxStatus(String wireName, String label) {
        this.wireName = wireName;
        this.label = label;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    public String label() {
        return label;
    }

    public static Optional<InboxStatus> fromWireName(String name) {
        return WireName.lookup(InboxStatus.class, name);
    }

    /** The status a stored word names; a word outside the domain is a broken database, not bad input. */
    public static InboxStatus ofStored(String name) {
        return WireName.stored(InboxStatus.class, name, "inbox status");
    }

    public static String wireNames() {
        return WireName.list(InboxStatus.class);
    }
}
