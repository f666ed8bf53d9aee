package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.UsageLedger;
import java.time.Duration;
import java.util.List;

/**
 * An attempt put off for a reason that is not the conflict's: the provider asked to wait, this replica is at its
 * concurrency limit towards it, or the lease has too little time left for a call. The conflict is handed back
 * with no attempt counted, claimable again after {@code retryAfter}.
 *
 * @param reason the history's name for why, e.g. {@code rate_limited}
 */
final class AttemptDeferred extends Exception {

    private final String reason;
    private final Duration retryAfter;
    private final List<UsageLedger.Entry> calls;

    AttemptDeferred(String reason, Duration retryAfter, String message, List<UsageLedger.Entry> calls) {
        super(message);
        this.reason = reason;
        this.retryAfter = retryAfter;
        this.calls = List.copyOf(calls);
    }

    String reason() {
        return reason;
    }

    Duration retryAfter() {
        return retryAfter;
    }

    List<UsageLedger.Entry> calls() {
        return calls;
    }
}
