package io.mergesynthesis.service.web;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** One org's provider calls this month, by model, and the model and budget the platform set for it. */
record OrgUsage(List<ByModel> byModel, Settings settings) {

    record ByModel(String provider, String model, long calls, long inputTokens, long outputTokens, long cacheTokens,
                   BigDecimal costUsd) {
    }

    /** Null fields: no model of its own (the configured primary), no budget. */
    record Settings(String model, BigDecimal monthlyBudgetUsd) {
        static final Settings NONE = new Settings(null, null);
    }

    /** Months are calendar months in UTC. */
    static Instant monthStart(Clock clock) {
        return YearMonth.now(clock.withZone(ZoneOffset.UTC)).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** On a handle already scoped to {@code org}. */
    static OrgUsage monthToDate(Handle handle, UUID org, Instant monthStart) {
        List<ByModel> rows = handle.createQuery("""
                        SELECT provider, model, count(*) AS calls, sum(input_tokens) AS input_tokens,
                               sum(output_tokens) AS output_tokens,
                               sum(cache_read_tokens + cache_write_tokens) AS cache_tokens, sum(cost_usd) AS cost_usd
                          FROM llm_usage_events
                         WHERE org_id = :org AND created_at >= :since
                         GROUP BY provider, model
                         ORDER BY sum(cost_usd) DESC, provider, model""")
                .bind("org", org)
                .bind("since", Timestamp.from(monthStart))
                .map((rs, ctx) -> new ByModel(rs.getString("provider"), rs.getString("model"), rs.getLong("calls"),
                        rs.getLong("input_tokens"), rs.getLong("output_tokens"), rs.getLong("cache_tokens"),
                        rs.getBigDecimal("cost_usd")))
                .list();
        return new OrgUsage(rows, settings(handle, org).orElse(Settings.NONE));
    }

    static Optional<Settings> settings(Handle handle, UUID org) {
        return handle.createQuery("SELECT model, monthly_budget_usd FROM org_synthesis_settings WHERE org_id = :org")
                .bind("org", org)
                .map((rs, ctx) -> new Settings(rs.getString("model"), rs.getBigDecimal("monthly_budget_usd")))
                .findOne();
    }

    /**
     * Sets an org's model and budget, in a transaction scoped to that org (row-level security holds the write to
     * it). Nulls clear them.
     */
    static void save(Handle handle, UUID org, String model, BigDecimal monthlyBudgetUsd) {
        handle.createUpdate("""
                        INSERT INTO org_synthesis_settings (org_id, model, monthly_budget_usd, updated_at)
                        VALUES (:org, :model, :budget, now())
                        ON CONFLICT (org_id) DO UPDATE
                           SET model = EXCLUDED.model, monthly_budget_usd = EXCLUDED.monthly_budget_usd,
                               updated_at = now()""")
                .bind("org", org)
                .bind("model", model)
                .bind("budget", monthlyBudgetUsd)
                .execute();
    }

    BigDecimal totalCost() {
        return byModel.stream().map(ByModel::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
