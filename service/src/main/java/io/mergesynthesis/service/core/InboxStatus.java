package io.mergesynthesis.service.core;

import java.util.Arrays;
import java.util.Optional;

/**
 * Where an org's admins are with a conflict: the words of the {@code inbox_status} domain, each with the words a
 * person reads for it. Written only through the API and the web inbox, never by the worker.
 */
public enum InboxStatus {
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

    public String wireName() {
        return wireName;
    }

    public String label() {
        return label;
    }

    public static Optional<InboxStatus> fromWireName(String name) {
        return Arrays.stream(values()).filter(s -> s.wireName.equals(name)).findFirst();
    }

    /** The status a stored word names; a word outside the domain is a broken database, not bad input. */
    public static InboxStatus ofStored(String name) {
        return fromWireName(name).orElseThrow(() -> new IllegalStateException("unknown inbox status " + name));
    }

    public static String wireNames() {
        return String.join(", ", Arrays.stream(values()).map(InboxStatus::wireName).toList());
    }
}
