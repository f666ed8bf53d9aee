package io.mergesynthesis.service.core;

import java.util.Optional;

/**
 * How an org's admin closed a conflict: the words of the {@code resolution} domain, stored in
 * {@code policy_conflicts.resolution} by {@link #wireName()}, each with the words a person reads for it.
 */
public enum Resolution implements WireName {
    /** The admin applied the suggested merge; only possible once the worker has written one. */
    ACCEPTED_SUGGESTION("accepted_suggestion", "accepted the suggestion"),
    /** The admin looked at the suggested merge and turned it down. */
    REJECTED_SUGGESTION("rejected_suggestion", "rejected the suggestion"),
    /** The admin fixed the rules by hand, with or without a suggestion. */
    MANUAL("manual", "fixed by hand");

    private final String wireName;
    private final String label;

    Resolution(String wireName, String label) {
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

    public static Optional<Resolution> fromWireName(String name) {
        return WireName.lookup(Resolution.class, name);
    }

    /** The resolution a stored word names (null for none); a word outside the domain is a broken database. */
    public static Resolution ofStored(String name) {
        return name == null ? null : WireName.stored(Resolution.class, name, "resolution");
    }

    public static String wireNames() {
        return WireName.list(Resolution.class);
    }
}
