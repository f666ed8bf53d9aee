package io.mergesynthesis.service.core;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Names a conflict's repair calls for what they were. The ledger keeps two passes, {@code primary} and
 * {@code escalation}, and records the second pass after a refused merge as {@code escalation} even when no
 * escalation model is configured and the repair went to the primary model again; a reader of that row would
 * think an escalation took place. The attempt itself says otherwise: a second pass in an attempt whose primary
 * answer the merge check refused ({@code refused}) is that answer's repair, and is shown as {@code repair}.
 */
public final class RepairPasses {

    public static final String REPAIR = "repair";

    private RepairPasses() {
    }

    public static List<ProviderCall> named(List<ProviderCall> calls) {
        if (calls == null) {
            return null;
        }
        Set<Integer> refusedFirst = calls.stream()
                .filter(call -> call.pass().equals("primary") && call.outcome().equals("refused"))
                .map(ProviderCall::attempt)
                .collect(Collectors.toSet());
        return calls.stream()
                .map(call -> call.pass().equals("escalation") && refusedFirst.contains(call.attempt())
                        ? new ProviderCall(call.attempt(), REPAIR, call.provider(), call.model(), call.inputTokens(),
                        call.outputTokens(), call.cacheReadTokens(), call.cacheWriteTokens(), call.costUsd(),
                        call.latencyMs(), call.outcome(), call.createdAt(), call.lane())
                        : call)
                .toList();
    }
}
