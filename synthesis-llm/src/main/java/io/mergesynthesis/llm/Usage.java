package io.mergesynthesis.llm;

/**
 * A provider's own token counts for one call, split the way the ledger stores them.
 *
 * @param inputTokens      input tokens neither read from nor written to the prompt cache
 * @param cacheReadTokens  input tokens read from the cache
 * @param cacheWriteTokens input tokens written to the cache
 */
public record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {

    public static final Usage NONE = new Usage(0, 0, 0, 0);

    /**
     * What a call is charged when the provider's own counts cannot be had or cannot be trusted: every token the
     * request allowed it to write, and the request's input estimated from its size (see {@link TokenEstimate}).
     * Never less than the provider could have charged for output; the input is an estimate either way.
     */
    public static Usage worstCase(long requestBytes, int maxTokens) {
        return new Usage((Math.max(0, requestBytes) + 3) / 4, Math.max(0, maxTokens), 0, 0);
    }

    /** Every input token, cached or not: what the tokens metric counts as {@code input}. */
    public long allInputTokens() {
        return inputTokens + cacheReadTokens + cacheWriteTokens;
    }
}
