package io.mergesynthesis.llm;

/**
 * A tokenizer-free estimate of how many tokens a text is: a quarter of its characters, rounded up. Providers'
 * tokenizers differ and none ships for Java without a model file; a quarter of the characters is the rule of
 * thumb both providers publish for English. Used where being off by a fifth is harmless: whether a prefix is
 * long enough to mark for caching, and the benchmark's second opinion beside the provider's own count.
 */
public final class TokenEstimate {

    private TokenEstimate() {
    }

    public static long of(CharSequence text) {
        return (text.length() + 3) / 4;
    }
}
