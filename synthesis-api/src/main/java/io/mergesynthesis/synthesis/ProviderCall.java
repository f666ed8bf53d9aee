package io.mergesynthesis.synthesis;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One paid call a synthesizer made to a model provider that the provider answered (with an answer, an error
 * status or a rate limit). The worker writes each one to the usage ledger exactly once; a synthesizer that
 * calls no provider (the stub) reports none.
 *
 * @param id                the call's own id, chosen when it was answered: wherever the call is written, it is this
 *                          row, so it is recorded once however often it is written
 * @param pass              which pass of the attempt made the call
 * @param provider          the configured provider name, e.g. {@code anthropic}
 * @param model             the provider's model name, without the provider prefix
 * @param inputTokens       the provider's own count of input tokens not read from or written to a cache
 * @param outputTokens      the provider's own count of output tokens
 * @param cacheReadTokens   input tokens the provider read from its prompt cache
 * @param cacheWriteTokens  input tokens the provider wrote to its prompt cache
 * @param costUsd           what the call cost by the configured prices, never null
 * @param latency           from sending the request to reading the whole answer
 * @param disposition       what became of the answer, as far as the synthesizer knows
 * @param requestId         the provider's id for the request, when it sent one
 * @param startedAt         when the request was sent, by the synthesizer's clock
 */
public record ProviderCall(
        UUID id,
        Pass pass,
        String provider,
        String model,
        long inputTokens,
        long outputTokens,
        long cacheReadTokens,
        long cacheWriteTokens,
        BigDecimal costUsd,
        Duration latency,
        Disposition disposition,
        String requestId,
        Instant startedAt) {

    public ProviderCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(pass, "pass");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(costUsd, "costUsd");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(disposition, "disposition");
        Objects.requireNonNull(startedAt, "startedAt");
    }

    /** The same call with another disposition (the worker learns later whether an answer was stored). */
    public ProviderCall withDisposition(Disposition other) {
        return new ProviderCall(id, pass, provider, model, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
                costUsd, latency, other, requestId, startedAt);
    }

    /**
     * The two passes of one attempt: the primary model, then a second pass when the primary's answer is unsure
     * (below the threshold) or refused by the {@link MergeCheck}; that second pass goes to the escalation model,
     * or to the primary model again when the route has none.
     */
    public enum Pass {
        PRIMARY("primary"),
        ESCALATION("escalation");

        private final String label;

        Pass(String label) {
            this.label = label;
        }

        /** The ledger's name for the pass. */
        public String label() {
            return label;
        }
    }

    /** What became of a call's answer. */
    public enum Disposition {
        /** Its answer is the merge the synthesizer returned: stored, or discarded if the worker cannot store it. */
        ANSWER,
        /** Answered and valid, but not used: a later pass replaced it. */
        DISCARDED,
        /** Answered, but with nothing usable: an error status, or output that failed the checks. */
        FAILED,
        /** Answered with a rate limit or an overload. */
        RATE_LIMITED,
        /**
         * Answered with a well-formed merge that the {@link MergeCheck} refused: paid for and never stored, and the
         * ledger says it was the check that threw it away.
         */
        REFUSED
    }
}
