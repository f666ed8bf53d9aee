package io.mergesynthesis.synthesis;

/** A synthesizer could not write a merge this time. */
public class SynthesisException extends Exception {
    public SynthesisException(String message) {
        super(message);
    }

    public SynthesisException(String message, Throwable cause) {
        super(message, cause);
    }
}
