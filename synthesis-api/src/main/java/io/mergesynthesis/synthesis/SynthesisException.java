package io.mergesynthesis.synthesis;

import java.util.List;

/**
 * A synthesizer could not write a merge this time. Carries the provider calls it paid for on the way, so that
 * the worker can record them even though no merge came of them.
 *
 * <p>The message is for the operator's log. What the conflict's org reads in the attempt history is the
 * {@link #summary()} instead: a provider's own error text can quote a key or anything else the request held, so it
 * never reaches a tenant.
 */
public class SynthesisException extends Exception {

    private final List<ProviderCall> calls;
    private final String summary;

    public SynthesisException(String message) {
        this(message, null, List.of());
    }

    public SynthesisException(String message, Throwable cause) {
        this(message, cause, List.of());
    }

    public SynthesisException(String message, Throwable cause, List<ProviderCall> calls) {
        this(message, null, cause, calls);
    }

    /**
     * @param summary what went wrong in a few words of the synthesizer's own, fit for the conflict's org to read;
     *                null to let the worker say it in words of its own
     */
    public SynthesisException(String message, String summary, Throwable cause, List<ProviderCall> calls) {
        super(message, cause);
        this.summary = summary;
        this.calls = List.copyOf(calls);
    }

    /**
     * The failure as the conflict's org may read it: a fixed description of its kind (the provider refused the
     * request, was unavailable, gave an answer that is not a merge), never a provider's own words; null when the
     * synthesizer gave none.
     */
    public String summary() {
        return summary;
    }

    /** The answered provider calls made before the failure, in order; empty when none was made. */
    public List<ProviderCall> calls() {
        return calls;
    }
}
