package io.mergesynthesis.service.worker.attempt;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.MergeCheckResult;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SuggestedMerge.MergedRule;
import io.mergesynthesis.synthesis.Synthesis;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The one reading of a leased row as the synthesizer's snapshot, and the one check of a merge before it is
 * stored (the schema, the conflict it names, the {@link MergeCheck}), with the text to store and its event's
 * details: whichever lane the answer came by, interactive or batch.
 */
public final class MergeAcceptance {

    private static final TypeReference<List<PolicyRule>> RULES = new TypeReference<>() {
    };

    private final SuggestedMergeJson mergeJson;
    private final SynthesisMetrics metrics;
    private final ObjectMapper json = JsonMapper.builder().findAndAddModules().build();

    public MergeAcceptance(SuggestedMergeJson mergeJson, SynthesisMetrics metrics) {
        this.mergeJson = mergeJson;
        this.metrics = metrics;
    }

    /** A merge ready to store, or why it may not be stored, with the calls it cost either way. */
    public record Verdict(String mergeJson, String eventDetailsJson, List<UsageLedger.Entry> calls, String refusal) {

        public boolean accepted() {
            return refusal == null;
        }
    }

    /** The row as the synthesizer's snapshot; a row that cannot be read so is a broken row, not bad luck. */
    ConflictSnapshot snapshot(LeasedRow row) throws AttemptFailure {
        try {
            return new ConflictSnapshot(row.id(), row.orgId(), row.dedupKey(),
                    Action.valueOf(row.action().toUpperCase(Locale.ROOT)), row.target(),
                    json.readValue(row.rulesJson(), RULES), row.winnerPolicyId(), row.detectedAt());
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.LOAD_ROW,
                    "conflict " + row.id() + " could not be read as a snapshot", e);
        }
    }

    /** {@link #snapshot}, for a caller outside the attempt: null when the row cannot be read. */
    public ConflictSnapshot snapshotOrNull(LeasedRow row) {
        try {
            return snapshot(row);
        } catch (AttemptFailure e) {
            return null;
        }
    }

    /** The merge of {@code synthesis} checked, for attempt {@code attempt}, with {@code calls} as its ledger rows. */
    public Verdict accept(Synthesis synthesis, ConflictSnapshot conflict, int attempt,
                          List<UsageLedger.Entry> calls) {
        try {
            MergeMaker.Made made = made(synthesis, conflict, attempt, calls);
            return new Verdict(made.mergeJson(), made.eventDetailsJson(), made.calls(), null);
        } catch (AttemptFailure e) {
            return new Verdict(null, null, e.calls(), e.getMessage());
        }
    }

    MergeMaker.Made made(Synthesis synthesis, ConflictSnapshot conflict, int attempt, List<UsageLedger.Entry> calls)
            throws AttemptFailure {
        String stored = validate(synthesis.merge(), conflict, calls);
        return new MergeMaker.Made(stored, eventDetails(synthesis.merge(), attempt), calls);
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
