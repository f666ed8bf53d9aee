package io.mergesynthesis.service.worker.batch;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A batch answer that the merge check refused, or whose confidence is below {@code llm.escalateBelow} where the
 * org's route has an escalation model, goes on within the same attempt as an interactive answer would: repaired,
 * or escalated, by an interactive call ({@link LlmSynthesizer#continueFromBatch}). The batch's call stays the
 * attempt's first, at the batch price.
 */
final class BatchSecondPass {

    /** No second pass: a refused batch answer fails its attempt, a hesitant one is kept. */
    static final BatchSecondPass NONE = new BatchSecondPass(null, null, 1.0);

    private final LlmSynthesizer synthesizer;
    private final Router router;
    private final double escalateBelow;

    BatchSecondPass(LlmSynthesizer synthesizer, Router router, double escalateBelow) {
        this.synthesizer = synthesizer;
        this.router = router;
        this.escalateBelow = escalateBelow;
    }

    /**
     * The route a second pass would take for this answer, read in its batch as {@code read}, or refused there
     * with {@code refused}; empty when the answer calls for none (it passed with confidence enough, or it is not
     * a merge at all, which no repair mends).
     */
    Optional<ResolvedModel> wanted(UUID org, BatchRoute route, Synthesis read, SynthesisException refused) {
        if (synthesizer == null) {
            return Optional.empty();
        }
        boolean checkRefused = refused != null && !refused.calls().isEmpty()
                && refused.calls().get(0).disposition() == ProviderCall.Disposition.REFUSED;
        Double confidence = read == null ? null : read.merge().confidence();
        boolean hesitant = confidence != null && confidence < escalateBelow;
        if (!checkRefused && !hesitant) {
            return Optional.empty();
        }
        ResolvedModel model;
        try {
            model = router.resolve(Router.MERGE_SYNTHESIS, org, route.qualifiedModel());
        } catch (Router.RouterException e) {
            return Optional.empty();
        }
        if (!model.provider().equals(route.provider()) || !model.model().equals(route.model())) {
            // The org's route changed since the batch went: its answer is judged as it came.
            return Optional.empty();
        }
        return checkRefused || model.escalation() != null ? Optional.of(model) : Optional.empty();
    }

    /** The second pass, interactive; the batch's call is put on record before it, through {@code early}. */
    Synthesis run(ConflictSnapshot conflict, ResolvedModel model, JsonNode answer, UUID callId, Instant answered,
                  CallRecorder early) throws SynthesisException, InterruptedException {
        return synthesizer.continueFromBatch(conflict, model, answer, callId, answered, early);
    }
}
