package io.mergesynthesis.service.web;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** What the workers did for one conflict: the provider calls of its usage ledger and its attempt history. */
final class ConflictActivity {

    private ConflictActivity() {
    }

    record Call(int attempt, String pass, String provider, String model, long inputTokens, long outputTokens,
                long cacheTokens, BigDecimal costUsd, int latencyMs, String outcome, Instant at) {
    }

    record Attempt(int attempt, String outcome, String reason, String detail, Instant finishedAt, Instant notBefore) {
    }

    /** Oldest first; on a handle already scoped to {@code org}. */
    static List<Call> calls(Handle handle, UUID org, UUID conflict) {
        return handle.createQuery("""
                        SELECT attempt, pass, provider, model, input_tokens, output_tokens,
                               cache_read_tokens + cache_write_tokens AS cache_tokens, cost_usd, latency_ms,
                               outcome, created_at
                          FROM llm_usage_events
                         WHERE org_id = :org AND conflict_id = :conflict
                         ORDER BY created_at, id""")
                .bind("org", org)
                .bind("conflict", conflict)
                .map((rs, ctx) -> new Call(rs.getInt("attempt"), rs.getString("pass"), rs.getString("provider"),
                        rs.getString("model"), rs.getLong("input_tokens"), rs.getLong("output_tokens"),
                        rs.getLong("cache_tokens"), rs.getBigDecimal("cost_usd"), rs.getInt("latency_ms"),
                        rs.getString("outcome"), rs.getTimestamp("created_at").toInstant()))
                .list();
    }

    /** Oldest first; on a handle already scoped to {@code org}. */
    static List<Attempt> history(Handle handle, UUID org, UUID conflict) {
        return handle.createQuery("""
                        SELECT attempt, outcome, reason, detail, finished_at, not_before
                          FROM synthesis_attempt_history
                         WHERE org_id = :org AND conflict_id = :conflict
                         ORDER BY id""")
                .bind("org", org)
                .bind("conflict", conflict)
                .map((rs, ctx) -> new Attempt(rs.getInt("attempt"), rs.getString("outcome"), rs.getString("reason"),
                        rs.getString("detail"), rs.getTimestamp("finished_at").toInstant(),
                        rs.getTimestamp("not_before") == null ? null : rs.getTimestamp("not_before").toInstant()))
                .list();
    }
}
