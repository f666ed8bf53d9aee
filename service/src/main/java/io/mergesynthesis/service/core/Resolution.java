package io.mergesynthesis.service.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** How an org's admin closed a conflict. Stored in {@code policy_conflicts.resolution} by {@link #wireName()}. */
public enum Resolution {
    /** The admin applied the suggested merge; only possible once the worker has written one. */
    ACCEPTED_SUGGESTION,
    /** The admin looked at the suggested merge and turned it down. */
    REJECTED_SUGGESTION,
    /** The admin fixed the rules by hand, with or without a suggestion. */
    MANUAL;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Resolution> fromWireName(String name) {
        return Arrays.stream(values()).filter(r -> r.wireName().equals(name)).findFirst();
    }

    public static String wireNames() {
        return String.join(", ", Arrays.stream(values()).map(Resolution::wireName).toList());
    }
}
