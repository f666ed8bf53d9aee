package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.mergesynthesis.service.core.ModelUsage;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Month-to-date use of the model providers, as {@code GET /v1/usage} answers: totals, one line per model, and one
 * per lane ({@code interactive}, {@code batch}) with the lane's models summed.
 *
 * @param orgId            the org the figures are of, or null for every org
 * @param monthlyBudgetUsd that org's budget, or null (no budget, or every org)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"org_id", "month_start", "monthly_budget_usd", "calls", "input_tokens", "output_tokens",
        "cache_read_tokens", "cache_write_tokens", "cost_usd", "by_model", "by_lane"})
public record UsageView(
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("month_start") Instant monthStart,
        @JsonProperty("monthly_budget_usd") BigDecimal monthlyBudgetUsd,
        @JsonProperty("calls") long calls,
        @JsonProperty("input_tokens") long inputTokens,
        @JsonProperty("output_tokens") long outputTokens,
        @JsonProperty("cache_read_tokens") long cacheReadTokens,
        @JsonProperty("cache_write_tokens") long cacheWriteTokens,
        @JsonProperty("cost_usd") BigDecimal costUsd,
        @JsonProperty("by_model") List<ByModel> byModel,
        @JsonProperty("by_lane") List<ByLane> byLane) {

    @JsonPropertyOrder({"lane", "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
            "cost_usd"})
    public record ByLane(
            @JsonProperty("lane") String lane,
            @JsonProperty("calls") long calls,
            @JsonProperty("input_tokens") long inputTokens,
            @JsonProperty("output_tokens") long outputTokens,
            @JsonProperty("cache_read_tokens") long cacheReadTokens,
            @JsonProperty("cache_write_tokens") long cacheWriteTokens,
            @JsonProperty("cost_usd") BigDecimal costUsd) {
    }

    @JsonPropertyOrder({"model", "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
            "cost_usd"})
    public record ByModel(
            @JsonProperty("model") String model,
            @JsonProperty("calls") long calls,
            @JsonProperty("input_tokens") long inputTokens,
            @JsonProperty("output_tokens") long outputTokens,
            @JsonProperty("cache_read_tokens") long cacheReadTokens,
            @JsonProperty("cache_write_tokens") long cacheWriteTokens,
            @JsonProperty("cost_usd") BigDecimal costUsd) {
    }

    public static UsageView of(UUID orgId, Instant monthStart, BigDecimal budget, List<ModelUsage> lines,
                               List<ModelUsage> lanes) {
        List<ByModel> byModel = lines.stream().map(u -> new ByModel(u.model(), u.calls(), u.inputTokens(),
                u.outputTokens(), u.cacheReadTokens(), u.cacheWriteTokens(), u.costUsd())).toList();
        return new UsageView(orgId, monthStart, budget,
                byModel.stream().mapToLong(ByModel::calls).sum(),
                byModel.stream().mapToLong(ByModel::inputTokens).sum(),
                byModel.stream().mapToLong(ByModel::outputTokens).sum(),
                byModel.stream().mapToLong(ByModel::cacheReadTokens).sum(),
                byModel.stream().mapToLong(ByModel::cacheWriteTokens).sum(),
                byModel.stream().map(ByModel::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add),
                byModel, lanes.stream().map(u -> new ByLane(u.lane(), u.calls(), u.inputTokens(), u.outputTokens(),
                        u.cacheReadTokens(), u.cacheWriteTokens(), u.costUsd())).toList());
    }
}
