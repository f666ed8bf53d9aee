package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.synthesis.ProviderCall;
import java.time.Instant;
import java.util.List;

/**
 * Turns the provider calls a synthesizer reports into usage-ledger rows. A row's id and time are the call's own,
 * fixed when the provider answered, so however often and from wherever the call is written (early, before an
 * escalation, and again with the attempt's end), it is one row.
 */
public final class PaidCalls {

    private PaidCalls() {
    }

    public static List<UsageLedger.Entry> entries(List<ProviderCall> calls) {
        return calls.stream().map(PaidCalls::entry).toList();
    }

    private static UsageLedger.Entry entry(ProviderCall call) {
        return new UsageLedger.Entry(call.id(), call.pass().label(), call.provider(), call.model(),
                call.inputTokens(), call.outputTokens(), call.cacheReadTokens(), call.cacheWriteTokens(),
                call.costUsd(), call.latency().toMillis(), outcome(call.disposition()), call.requestId(),
                answeredAt(call));
    }

    /**
     * When the provider answered: the moment the request was sent plus how long the answer took, both fixed with
     * the call. It names the ledger row's month partition, so it must come out the same on every write.
     */
    static Instant answeredAt(ProviderCall call) {
        return call.startedAt().plus(call.latency());
    }

    private static String outcome(ProviderCall.Disposition disposition) {
        return switch (disposition) {
            case ANSWER -> UsageLedger.ANSWER;
            case DISCARDED -> "discarded";
            case FAILED -> "failed";
            case RATE_LIMITED -> "rate_limited";
            case REFUSED -> UsageLedger.REFUSED;
        };
    }
}
