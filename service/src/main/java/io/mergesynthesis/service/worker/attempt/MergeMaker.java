package io.mergesynthesis.service.worker.attempt;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.synthesis.SuggestedMergeJson;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The part of an attempt that makes the merge, and holds no connection: the leased row read as the
 * synthesizer's snapshot, the model the router picks for the org, the synthesizer's call, and the answer checked
 * against the schema and the {@link MergeCheck} and written as the text to store. Each step tags what it throws
 * with its {@link FailureReason}.
 */
public final class MergeMaker {

    private static final TypeReference<List<PolicyRule>> RULES = new TypeReference<>() {
    };

    private final Router router;
    private final SynthesisCall call;
    private final SuggestedMergeJson mergeJson;
    private final SynthesisMetrics metrics;
    private final ObjectMapper json = JsonMapper.builder().findAndAddModules().build();

    /** @param metrics where a merge the check refuses is counted */
    public MergeMaker(Router router, SynthesisCall call, SuggestedMergeJson mergeJson, SynthesisMetrics metrics) {
        this.router = router;
        this.call = call;
        this.mergeJson = mergeJson;
        this.metrics = metrics;
    }

    /** A merge ready to store: its canonical text, its event's details, and the calls it cost. */
    record Made(String mergeJson, String eventDetailsJson, List<UsageLedger.Entry> calls) {
    }

    /** How long the synthesizer may take; no call starts on a lease with less than this left. */
    Duration invokeTimeout() {
        return call.invokeTimeout();
    }

    /** The snapshot and the model for {@code row}: what the call needs, read before anything is paid for. */
    record Prepared(ConflictSnapshot snapshot, ResolvedModel model) {
    }

    Prepared prepare(LeasedRow row) throws AttemptFailure {
        ConflictSnapshot snapshot;
        try {
            snapshot = new ConflictSnapshot(row.id(), row.orgId(), row.dedupKey(),
                    Action.valueOf(row.action().toUpperCase(Locale.ROOT)), row.target(),
                    json.readValue(row.rulesJson(), RULES), row.winnerPolicyId(), row.detectedAt());
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + row.id() + " could not be read as a snapshot", e);
        }
        return new Prepared(snapshot, route(row.orgId(), row.orgModel()));
    }

    /**
     * Calls the synthesizer and checks its answer, for attempt number {@code attempt}.
     *
     * @param early where the synthesizer puts a call on record before it makes another for the same attempt
     */
    Made make(Prepared prepared, int attempt, CallRecorder early) throws AttemptFailure, AttemptDeferred {
        Synthesis synthesis = call.invoke(prepared.snapshot(), prepared.model(), early);
        List<UsageLedger.Entry> calls = PaidCalls.entries(synthesis.calls());
        String stored = validate(synthesis.merge(), prepared.snapshot(), calls);
        return new Made(stored, eventDetails(synthesis.merge(), attempt), calls);
    }

    /** @param orgModel the org's model setting, read with the conflict: the router need not read it again */
    private ResolvedModel route(UUID orgId, String orgModel) throws AttemptFailure {
        try {
            return router.resolve(Router.MERGE_SYNTHESIS, orgId, orgModel);
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.ROUTER_RESOLVE, "no model for org " + orgId, e);
        }
    }

    /**
     * The canonical text to store, once the merge has passed the schema, names this conflict and passes the
     * merge check, whoever wrote it. A merge the check refuses fails the attempt as {@code invalid_json} with the
     * findings as its detail, codes first, and the call that answered it is recorded as refused.
     */
    private String validate(SuggestedMerge merge, ConflictSnapshot conflict, List<UsageLedger.Entry> calls)
            throws AttemptFailure {
        SuggestedMergeJson.Checked checked;
        try {
            checked = mergeJson.check(merge, conflict.conflictId());
        } catch (RuntimeException e) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge cannot be written as JSON", e, calls);
        }
        if (!checked.passed()) {
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge breaks the schema: " + checked.problems(),
                    null, calls);
        }
        List<MergeFinding> findings = MergeCheck.check(conflict, merge);
        if (!findings.isEmpty()) {
            metrics.refused(findings);
            throw new AttemptFailure(FailureReason.INVALID_JSON, "the merge check refused the merge of '"
                    + merge.producedBy().synthesizer() + "' " + findings.stream().map(f -> f.code().wireName())
                    .distinct().collect(Collectors.joining(", ", "[", "]")) + ": "
                    + findings.stream().map(MergeFinding::toString).collect(Collectors.joining("; ")),
                    null, refused(calls));
        }
        return checked.json();
    }

    /** The calls with the one whose answer was the refused merge marked as refused. */
    private static List<UsageLedger.Entry> refused(List<UsageLedger.Entry> calls) {
        return calls.stream().map(call -> !UsageLedger.ANSWER.equals(call.outcome()) ? call
                : new UsageLedger.Entry(call.id(), call.pass(), call.provider(), call.model(), call.inputTokens(),
                        call.outputTokens(), call.cacheReadTokens(), call.cacheWriteTokens(), call.costUsd(),
                        call.latencyMs(), UsageLedger.REFUSED, call.requestId())).toList();
    }

    private String eventDetails(SuggestedMerge merge, int attempt) {
        return json.createObjectNode()
                .put("attempt", attempt)
                .put("synthesizer", merge.producedBy().synthesizer())
                .put("provider", merge.producedBy().provider())
                .put("model", merge.producedBy().model())
                .toString();
    }
}
