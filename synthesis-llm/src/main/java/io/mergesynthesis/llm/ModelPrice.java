package io.mergesynthesis.llm;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * What one model costs, in USD per million tokens. Cache prices are optional: when left out, a cache read
 * costs a tenth of the input price and a cache write 1.25 times it, which is how Anthropic prices its
 * five-minute cache. Set them explicitly for a provider that prices caching differently.
 *
 * <p>{@code minCachedPrefixTokens} is the shortest prefix the model's provider caches when asked to, which differs
 * by model; a request marks its static prefix cacheable when it is estimated at least this long. Left out, the
 * prefix is never marked (OpenAI caches without being asked, so its models need none).
 */
public final class ModelPrice {

    private static final BigDecimal CACHE_READ_SHARE = new BigDecimal("0.1");
    private static final BigDecimal CACHE_WRITE_SHARE = new BigDecimal("1.25");
    /** What both providers take off their prices for a request in a batch. */
    private static final BigDecimal BATCH_DISCOUNT = new BigDecimal("0.5");

    private BigDecimal inputPerMillionUsd;
    private BigDecimal outputPerMillionUsd;
    private BigDecimal cacheReadPerMillionUsd;
    private BigDecimal cacheWritePerMillionUsd;
    private Integer minCachedPrefixTokens;
    private BigDecimal batchDiscount;

    public ModelPrice() {
    }

    public ModelPrice(BigDecimal inputPerMillionUsd, BigDecimal outputPerMillionUsd) {
        this.inputPerMillionUsd = inputPerMillionUsd;
        this.outputPerMillionUsd = outputPerMillionUsd;
    }

    /** The cost of one call's usage: each token count times its price, over a million; exact. */
    public BigDecimal cost(Usage usage) {
        BigDecimal perMillion = BigDecimal.valueOf(usage.inputTokens()).multiply(input())
                .add(BigDecimal.valueOf(usage.outputTokens()).multiply(output()))
                .add(BigDecimal.valueOf(usage.cacheReadTokens()).multiply(effectiveCacheRead()))
                .add(BigDecimal.valueOf(usage.cacheWriteTokens()).multiply(effectiveCacheWrite()));
        return perMillion.movePointLeft(6).stripTrailingZeros();
    }

    /** The cost of a request answered in a batch: {@link #cost} less the batch discount; exact. */
    public BigDecimal batchCost(Usage usage) {
        return cost(usage).multiply(BigDecimal.ONE.subtract(effectiveBatchDiscount())).stripTrailingZeros();
    }

    /** The share taken off every price in a batch: {@code batchDiscount} when set, else a half. */
    public BigDecimal effectiveBatchDiscount() {
        return batchDiscount != null ? batchDiscount : BATCH_DISCOUNT;
    }

    public BigDecimal getBatchDiscount() {
        return batchDiscount;
    }

    public void setBatchDiscount(BigDecimal batchDiscount) {
        this.batchDiscount = batchDiscount;
    }

    public BigDecimal effectiveCacheRead() {
        return cacheReadPerMillionUsd != null ? cacheReadPerMillionUsd : input().multiply(CACHE_READ_SHARE);
    }

    public BigDecimal effectiveCacheWrite() {
        return cacheWritePerMillionUsd != null ? cacheWritePerMillionUsd : input().multiply(CACHE_WRITE_SHARE);
    }

    private BigDecimal input() {
        return Objects.requireNonNullElse(inputPerMillionUsd, BigDecimal.ZERO);
    }

    private BigDecimal output() {
        return Objects.requireNonNullElse(outputPerMillionUsd, BigDecimal.ZERO);
    }

    public BigDecimal getInputPerMillionUsd() {
        return inputPerMillionUsd;
    }

    public void setInputPerMillionUsd(BigDecimal inputPerMillionUsd) {
        this.inputPerMillionUsd = inputPerMillionUsd;
    }

    public BigDecimal getOutputPerMillionUsd() {
        return outputPerMillionUsd;
    }

    public void setOutputPerMillionUsd(BigDecimal outputPerMillionUsd) {
        this.outputPerMillionUsd = outputPerMillionUsd;
    }

    public BigDecimal getCacheReadPerMillionUsd() {
        return cacheReadPerMillionUsd;
    }

    public void setCacheReadPerMillionUsd(BigDecimal cacheReadPerMillionUsd) {
        this.cacheReadPerMillionUsd = cacheReadPerMillionUsd;
    }

    public BigDecimal getCacheWritePerMillionUsd() {
        return cacheWritePerMillionUsd;
    }

    public void setCacheWritePerMillionUsd(BigDecimal cacheWritePerMillionUsd) {
        this.cacheWritePerMillionUsd = cacheWritePerMillionUsd;
    }

    public Integer getMinCachedPrefixTokens() {
        return minCachedPrefixTokens;
    }

    public void setMinCachedPrefixTokens(Integer minCachedPrefixTokens) {
        this.minCachedPrefixTokens = minCachedPrefixTokens;
    }

    /** The minimum as a request plan reads it: 0 never marks the prefix. */
    public int cacheFromTokens() {
        return minCachedPrefixTokens == null ? 0 : minCachedPrefixTokens;
    }

    @Override
    public String toString() {
        return "ModelPrice{input=" + inputPerMillionUsd + ", output=" + outputPerMillionUsd
                + ", cacheRead=" + effectiveCacheRead() + ", cacheWrite=" + effectiveCacheWrite() + " per million USD}";
    }
}
