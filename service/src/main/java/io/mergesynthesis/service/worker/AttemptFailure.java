package io.mergesynthesis.service.worker;

/** A step of an attempt failed; carries the {@link FailureReason} the step stands for. */
final class AttemptFailure extends Exception {

    private final FailureReason reason;

    AttemptFailure(FailureReason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    AttemptFailure(FailureReason reason, String message) {
        this(reason, message, null);
    }

    FailureReason reason() {
        return reason;
    }
}
