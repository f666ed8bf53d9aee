package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.models.OrgModelCheck;
import io.mergesynthesis.service.worker.FailureReason;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Synthesis;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

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

    private final Router router;
    private final OrgModelCheck orgModels;
    private final SynthesisCall call;
    private final MergeAcceptance acceptance;

    /**
     * @param orgModels whether an org's own model can be served here; {@link OrgModelCheck#NONE} for the stub
     * @param metrics   where a merge the check refuses is counted
     */
    public MergeMaker(Router router, OrgModelCheck orgModels, SynthesisCall call, SuggestedMergeJson mergeJson,
                      SynthesisMetrics metrics) {
        this.router = router;
        this.orgModels = orgModels;
        this.call = call;
        this.acceptance = new MergeAcceptance(mergeJson, metrics);
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
        return new Prepared(acceptance.snapshot(row), route(row.orgId(), row.orgModel()));
    }

    /**
     * Calls the synthesizer and checks its answer, for attempt number {@code attempt}.
     *
     * @param early where the synthesizer puts a call on record before it makes another for the same attempt
     */
    Made make(Prepared prepared, int attempt, CallRecorder early) throws AttemptFailure, AttemptDeferred {
        Synthesis synthesis = call.invoke(prepared.snapshot(), prepared.model(), early);
        return acceptance.made(synthesis, prepared.snapshot(), attempt, PaidCalls.entries(synthesis.calls()));
    }

    /** @param orgModel the org's model setting, read with the conflict: the router need not read it again */
    private ResolvedModel route(UUID orgId, String orgModel) throws AttemptFailure {
        try {
            return router.resolve(Router.MERGE_SYNTHESIS, orgId, orgModel);
        } catch (Exception e) {
            throw new AttemptFailure(FailureReason.ROUTER_RESOLVE, "no model for org " + orgId, e);
        }
    }
}
