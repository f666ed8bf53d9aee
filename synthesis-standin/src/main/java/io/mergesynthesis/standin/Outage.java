package io.mergesynthesis.standin;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How the stand-in fails for everyone while an outage lasts: the three ways a real provider is seen to be down. */
public enum Outage {
    /** No outage: answers as configured. */
    NONE,
    /** Every request is answered 503. */
    STATUS_503,
    /** Requests are read and never answered; the caller's own timeout ends them. */
    HANG,
    /** The port is closed: connections are refused. */
    REFUSE;

    /** The name used on the command line and in {@code /stand-in/outage}: {@code none}, {@code status-503}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Outage fromLabel(String label) {
        for (Outage outage : values()) {
            if (outage.label().equals(label)) {
                return outage;
            }
        }
        throw new IllegalArgumentException("unknown outage '" + label + "' (known: "
                + Arrays.stream(values()).map(Outage::label).collect(Collectors.joining(", ")) + ")");
    }
}
