package io.mergesynthesis.synthesis;

import java.util.List;

/**
 * A synthesizer could not write a merge this time. Carries the provider calls it paid for on the way, so that
 * the worker can record them even though no merge came of them.
 */
public class SynthesisException extends Exception {

    private final List<ProviderCall> calls;

    public SynthesisException(String message) {
        this(message, null, List.of());
    }

    public SynthesisException(String message, Throwable cause) {
        this(message, cause, List.of());
    }

    public SynthesisException(String message, Throwable cause, List<ProviderCall> calls) {
        super(message, cause);
        this.calls = List.copyOf(calls);
    }

    /** The answered provider calls made before the failure, in order; empty when none was made. */
    public List<ProviderCall> calls() {
        return calls;
    }
}
