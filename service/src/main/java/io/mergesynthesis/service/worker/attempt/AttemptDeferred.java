package io.mergesynthesis.service.worker.attempt;

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
    private final String shown;
    private final Duration retryAfter;
    private final boolean providerPaused;
    private final String provider;
    private final List<UsageLedger.Entry> calls;

    /**
     * @param providerPaused true when the provider asked the whole replica to wait (a rate limit, an overload, a
     *                       refused key), or has no slot or turn for a call until then: no other conflict of its
     *                       routes should be claimed meanwhile
     */
    AttemptDeferred(String reason, Duration retryAfter, boolean providerPaused, String message,
                    List<UsageLedger.Entry> calls) {
        this(reason, retryAfter, providerPaused, null, message, message, calls);
    }

    /**
     * @param provider the provider that asked to wait, or null when the deferral is not a provider's
     * @param message  for the operator's log
     * @param shown    what the conflict's org reads in the attempt history; never text from outside the service
     */
    AttemptDeferred(String reason, Duration retryAfter, boolean providerPaused, String provider, String message,
                    String shown, List<UsageLedger.Entry> calls) {
        super(message);
        this.reason = reason;
        this.shown = shown;
        this.retryAfter = retryAfter;
        this.providerPaused = providerPaused;
        this.provider = provider;
        this.calls = List.copyOf(calls);
    }

    String reason() {
        return reason;
    }

    String shown() {
        return shown;
    }

    Duration retryAfter() {
        return retryAfter;
    }

    boolean providerPaused() {
        return providerPaused;
    }

    String provider() {
        return provider;
    }

    List<UsageLedger.Entry> calls() {
        return calls;
    }
}
