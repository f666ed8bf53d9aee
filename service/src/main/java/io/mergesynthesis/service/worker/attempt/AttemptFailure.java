package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import java.util.List;

/**
 * A step of an attempt failed; carries the {@link FailureReason} the step stands for, and the provider calls
 * paid for before it failed (recorded in the usage ledger with the failure).
 *
 * <p>The message is for the operator's log; the attempt history, which the conflict's org reads, gets
 * {@link #shown()}. The two differ only for a synthesizer's failure, whose message may carry a provider's own text.
 */
final class AttemptFailure extends Exception {

    /** What the history says of a failure that escaped the worker's own code: its text is for the log alone. */
    static final String UNEXPECTED = "an unexpected error in the service; the operator's log has the details";

    private final FailureReason reason;
    private final String shown;
    private final List<UsageLedger.Entry> calls;

    /**
     * @param shown what the conflict's org reads of the failure; never text that came from outside the service
     */
    AttemptFailure(FailureReason reason, String message, String shown, Throwable cause,
                   List<UsageLedger.Entry> calls) {
        super(message, cause);
        this.reason = reason;
        this.shown = shown;
        this.calls = List.copyOf(calls);
    }

    /** A failure in the worker's own words, shown as it is. */
    AttemptFailure(FailureReason reason, String message, Throwable cause, List<UsageLedger.Entry> calls) {
        this(reason, message, message, cause, calls);
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

    String shown() {
        return shown;
    }

    /** What the attempt history says of {@code failure}: a tagged failure's own, else {@link #UNEXPECTED}. */
    static String shownOf(Throwable failure) {
        return failure instanceof AttemptFailure tagged ? tagged.shown() : UNEXPECTED;
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
