package io.mergesynthesis.llm;

/**
 * What one request asks for beyond the conflict: how many output tokens the answer may take, and from what
 * estimated length the static prefix (tools and system prompt) is marked for the provider's prompt cache.
 *
 * @param maxTokens           the answer's output budget ({@code max_tokens}, {@code max_completion_tokens})
 * @param cacheFromTokens     the model's minimum cacheable prefix, in tokens; 0 never marks the prefix. Only
 *                            protocols that mark a prefix read it: OpenAI caches a long enough prefix by itself.
 */
public record RequestPlan(int maxTokens, int cacheFromTokens) {

    public RequestPlan {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, not " + maxTokens);
        }
        if (cacheFromTokens < 0) {
            throw new IllegalArgumentException("cacheFromTokens must not be negative, not " + cacheFromTokens);
        }
    }

    /** The plan of a request made without sizing: the provider's configured ceiling, no cache marker. */
    public static RequestPlan unsized(ProviderSettings provider) {
        return new RequestPlan(provider.getMaxOutputTokens(), 0);
    }

    /** Whether a prefix of this estimated length reaches the model's minimum and is worth marking. */
    public boolean marksPrefixOf(long estimatedTokens) {
        return cacheFromTokens > 0 && estimatedTokens >= cacheFromTokens;
    }
}
