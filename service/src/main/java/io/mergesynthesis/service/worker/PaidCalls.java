package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.synthesis.ProviderCall;
import java.util.List;
import java.util.UUID;

/**
 * Turns the provider calls a synthesizer reports into usage-ledger rows. Each row gets its id here, once, so that
 * however often the write that carries it is sent, the call is recorded once.
 */
final class PaidCalls {

    private PaidCalls() {
    }

    static List<UsageLedger.Entry> entries(List<ProviderCall> calls) {
        return calls.stream().map(PaidCalls::entry).toList();
    }

    private static UsageLedger.Entry entry(ProviderCall call) {
        return new UsageLedger.Entry(UUID.randomUUID(), call.pass().label(), call.provider(), call.model(),
                call.inputTokens(), call.outputTokens(), call.cacheReadTokens(), call.cacheWriteTokens(),
                call.costUsd(), call.latency().toMillis(), outcome(call.disposition()), call.requestId());
    }

    private static String outcome(ProviderCall.Disposition disposition) {
        return switch (disposition) {
            case ANSWER -> UsageLedger.ANSWER;
            case DISCARDED -> "discarded";
            case FAILED -> "failed";
            case RATE_LIMITED -> "rate_limited";
        };
    }
}
