package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.math.BigDecimal;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * One succeeded request of a batch read as the interactive lane reads an answer: the same protocol reading, the
 * same answer check and the same {@link MergeCheck}, and one paid call at the batch price. The call's id is given,
 * not drawn, so that reading the same result again (after a crash) is the same ledger row.
 */
public final class BatchAnswer {

    private BatchAnswer() {
    }

    /**
     * @param message  the result's {@code message}, as {@code POST /v1/messages} would have answered
     * @param callId   the ledger row of this request, the same each time its result is read
     * @param answered when the batch ended, by the provider's account or the first look that saw it ended
     * @throws InvalidAnswerException when the answer is not a merge, or one the check refuses; it carries the call
     */
    public static Synthesis read(ProviderType type, JsonNode message, ConflictSnapshot conflict, String provider,
                                 String model, ModelPrice price, int maxAnswerBytes, UUID callId, Instant answered)
            throws SynthesisException {
        List<ProviderCall> calls = new ArrayList<>();
        PolicyRule winner = conflict.winner().orElseThrow(() -> new InvalidAnswerException("conflict "
                + conflict.conflictId() + " names a winner none of its rules has",
                List.of(call(type, message, provider, model, price, callId, answered))));
        var merge = pass(type, message, conflict, winner, provider, model, price, maxAnswerBytes, callId, answered,
                calls).merge();
        ProviderCall call = calls.get(0);
        List<MergeFinding> findings = MergeCheck.check(conflict, merge);
        if (!findings.isEmpty()) {
            String codes = findings.stream().map(f -> f.code().wireName()).distinct()
                    .collect(Collectors.joining(", ", "[", "]"));
            throw new InvalidAnswerException("the merge check refused the answer in a batch of '" + provider + "/"
                    + model + "' " + codes, "the merge check refused the answer " + codes,
                    List.of(call.withDisposition(Disposition.REFUSED)));
        }
        return new Synthesis(merge, List.of(call));
    }

    /**
     * The answer as a first pass of its attempt, its call added to {@code calls}, not yet checked: what
     * {@link LlmSynthesizer#continueFromBatch} goes on from.
     *
     * @throws InvalidAnswerException when the answer is not a merge at all; it carries the call, failed
     */
    static PassAnswer pass(ProviderType type, JsonNode message, ConflictSnapshot conflict, PolicyRule winner,
                           String provider, String model, ModelPrice price, int maxAnswerBytes, UUID callId,
                           Instant answered, List<ProviderCall> calls) throws InvalidAnswerException {
        ProviderReply reply = reply(type, message);
        ProviderCall call = call(reply, provider, model, price, callId, answered);
        try {
            if (reply.answerText() == null || reply.cut()) {
                throw new AnswerRejected(reply.cut() ? "the answer stopped at max_tokens" : reply.unreadable());
            }
            ModelAnswer answer = AnswerCheck.check(reply.answerText(), conflict, maxAnswerBytes);
            calls.add(call);
            return new PassAnswer(
                    answer.toMerge(conflict, winner, new ProducedBy(LlmSynthesizer.NAME, provider, model), answered),
                    answer.confidence(), calls.size() - 1, AnswerCheck.parse(reply.answerText()).toString());
        } catch (AnswerRejected e) {
            calls.add(call.withDisposition(Disposition.FAILED));
            throw new InvalidAnswerException("provider '" + provider + "' model '" + model
                    + "' gave an answer in a batch that cannot be used: " + e.getMessage(),
                    "the answer was not a valid merge: " + e.getMessage(), List.copyOf(calls));
        }
    }

    /**
     * The paid call alone, for an answer that will not be read as a merge (its conflict left the batch meanwhile):
     * on record all the same, since it was paid for.
     */
    public static ProviderCall call(ProviderType type, JsonNode message, String provider, String model,
                                    ModelPrice price, UUID callId, Instant answered) {
        return call(reply(type, message), provider, model, price, callId, answered);
    }

    private static ProviderReply reply(ProviderType type, JsonNode message) {
        return type.protocol().read(200, HttpHeaders.of(Map.of(), (a, b) -> true),
                message.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static ProviderCall call(ProviderReply reply, String provider, String model, ModelPrice price,
                                     UUID callId, Instant answered) {
        BigDecimal cost = price.batchCost(reply.usage());
        // No latency of its own: the ledger row's time is when the batch ended, the same on every reading.
        return new ProviderCall(callId, ProviderCall.Pass.PRIMARY, provider, model, reply.usage().inputTokens(),
                reply.usage().outputTokens(), reply.usage().cacheReadTokens(), reply.usage().cacheWriteTokens(), cost,
                Duration.ZERO, Disposition.ANSWER, reply.requestId(), answered);
    }
}
