package io.mergesynthesis.service.worker.attempt;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.MergeCheckResult;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.models.OrgModelCheck;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.Synthesis;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The part of an attempt that makes the merge, and holds no connection: the leased row read as the
 * synthesizer's snapshot, the model the router picks for the org, the synthesizer's call, and the answer checked
 * against the schema and the {@link MergeCheck} and written as the text to store. Each step tags what it throws
 * with its {@link FailureReason}; an org model this replica cannot serve defers the attempt instead.
 */
public final class MergeMaker {

    /**
     * How long a conflict of an org whose model cannot be served waits before it is looked at again: a key is
     * set by a restart, a model by the platform, neither within seconds.
     */
    static final Duration UNSERVABLE_MODEL_RETRY = Duration.ofSeconds(60);

    /** The history's reason for an attempt held back by {@link #UNSERVABLE_MODEL_RETRY}. */
    static final String UNSERVABLE_MODEL = "model_unusable";

    private static final TypeReference<List<PolicyRule>> RULES = new TypeReference<>() {
    };

    private final Router router;
    private final OrgModelCheck orgModels;
    private final SynthesisCall call;
    private final SuggestedMergeJson mergeJson;
    private final SynthesisMetrics metrics;
    private final ObjectMapper json = JsonMapper.builder().findAndAddModules().build();

    /**
     * @param orgModels whether an org's own model can be served here; {@link OrgModelCheck#NONE} for the stub
     * @param metrics   where a merge the check refuses is counted
     */
    public MergeMaker(Router router, OrgModelCheck orgModels, SynthesisCall call, SuggestedMergeJson mergeJson,
                      SynthesisMetrics metrics) {
        this.router = router;
        this.orgModels = orgModels;
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

    Prepared prepare(LeasedRow row) throws AttemptFailure, AttemptDeferred {
        Optional<ModelCatalog.Unusable> unservable = orgModels.unservable(row.orgModel());
        if (unservable.isPresent()) {
            throw new AttemptDeferred(UNSERVABLE_MODEL, UNSERVABLE_MODEL_RETRY, false,
                    "the org's " + unservable.get().describe() + "; no call made", List.of());
        }
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
                : call.withOutcome(UsageLedger.REFUSED)).toList();
    }

    /**
     * The "merge synthesized" event's details: who wrote the merge, what it makes of the rules, and the check it
     * passed, so that a SIEM can alert on a merge's effect, layer, owner or target without reading the conflict.
     * Only a merge that passed {@link MergeCheck} gets this far.
     */
    private String eventDetails(SuggestedMerge merge, int attempt) {
        ObjectNode details = json.createObjectNode()
                .put("attempt", attempt)
                .put("synthesizer", merge.producedBy().synthesizer())
                .put("provider", merge.producedBy().provider())
                .put("model", merge.producedBy().model())
                .put("resolved_effect", wireName(merge.resolvedEffect()));
        MergedRule rule = merge.mergedRule();
        details.putObject("merged_rule")
                .put("effect", wireName(rule.effect()))
                .put("target", rule.target())
                .put("scope", rule.scope() == null ? null : rule.scope().wireName())
                .put("scope_id", rule.scopeId())
                .put("based_on_policy_id", rule.basedOnPolicyId());
        details.putObject("check")
                .put("result", MergeCheckResult.PASSED.wireName())
                .put("version", MergeCheck.VERSION);
        return details.toString();
    }

    private static String wireName(Effect effect) {
        return effect == null ? null : effect.wireName();
    }
}
