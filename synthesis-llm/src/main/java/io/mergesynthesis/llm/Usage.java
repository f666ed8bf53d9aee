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

    /** Every input token, cached or not: what the tokens metric counts as {@code input}. */
    public long allInputTokens() {
        return inputTokens + cacheReadTokens + cacheWriteTokens;
    }
}
