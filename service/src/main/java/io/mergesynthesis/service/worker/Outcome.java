package io.mergesynthesis.service.worker;

import java.util.Locale;

/** How one attempt at a conflict ended: the four values of the {@code outcome} label. */
public enum Outcome {
    /** A suggested merge was stored. */
    SUCCESS,
    /** The attempt failed and the conflict went back to pending, to be retried after its backoff. */
    TRANSIENT_FAILURE,
    /** The attempt failed for the last time; the conflict now carries the permanent marker. */
    PERMANENT_FAILURE,
    /** The lease had passed to another worker, so this one wrote nothing. */
    SKIPPED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
