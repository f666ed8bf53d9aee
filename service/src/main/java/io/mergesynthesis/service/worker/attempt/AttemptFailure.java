package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import java.util.List;

/**
 * A step of an attempt failed; carries the {@link FailureReason} the step stands for, and the provider calls
 * paid for before it failed (recorded in the usage ledger with the failure).
 */
final class AttemptFailure extends Exception {

    private final FailureReason reason;
    private final List<UsageLedger.Entry> calls;

    AttemptFailure(FailureReason reason, String message, Throwable cause, List<UsageLedger.Entry> calls) {
        super(message, cause);
        this.reason = reason;
        this.calls = List.copyOf(calls);
    }

    AttemptFailure(FailureReason reason, String message, Throwable cause) {
        this(reason, message, cause, List.of());
    }

    AttemptFailure(FailureReason reason, String message) {
        this(reason, message, null);
    }

    FailureReason reason() {
        return reason;
    }

    List<UsageLedger.Entry> calls() {
        return calls;
    }

    /**
     * The reason for a failure. Each step of an attempt tags what it throws with the reason it stands for;
     * anything untagged escaped from the worker's own code and is {@link FailureReason#UNKNOWN}.
     */
    static FailureReason reasonOf(Throwable failure) {
        return failure instanceof AttemptFailure tagged ? tagged.reason() : FailureReason.UNKNOWN;
    }

    /** The ledger rows of the calls a failure carries, whatever it is (their ids fixed once, see PaidCalls). */
    static List<UsageLedger.Entry> callsOf(Throwable failure) {
        return failure instanceof AttemptFailure tagged ? tagged.calls() : List.of();
    }
}
