package io.mergesynthesis.service.db;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.ModelUsage;
import io.mergesynthesis.service.core.Money;
import io.mergesynthesis.service.core.ProviderCall;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The usage ledger ({@code llm_usage_events}): one row per provider call that the provider answered, all of
 * its SQL. The worker writes a call's rows in the same transaction as the attempt's outcome (the merge, a retry,
 * a hand-back), so that they commit together; the API reads them for usage, budgets and the conflict view.
 *
 * <p>Each row's id is the call's own, so a call written twice (sent again after a commit whose answer was lost,
 * or recorded early before an escalation and again when the attempt ends) is one row; the attempt's end settles
 * its outcome. The outcome is the only column ever updated.
 */
public final class UsageLedger {

    /**
     * The outcome of a call whose answer became the attempt's merge. The statement that stores the merge turns
     * it into {@code stored}, or {@code discarded} when the lease fence let nothing be stored; every other
     * write turns it into {@code discarded}.
     */
    public static final String ANSWER = "answer";

    /** The outcome of a call whose well-formed answer the merge check refused: paid for, never stored. */
    public static final String REFUSED = "refused";

    private static final ObjectMapper JSON = new ObjectMapper();

    private UsageLedger() {
    }

    /** One answered provider call, as the worker hands it to the ledger. */
    public record Entry(UUID id, String pass, String provider, String model, long inputTokens, long outputTokens,
                        long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd, long latencyMs,
                        String outcome, String requestId) {
    }

    /**
     * The insert of {@code :calls} (a JSON array written by {@link #callsJson}) for conflict {@code :conflict} of
     * {@code :org}, attempt {@code :attempt}. {@code storedWhen} is the SQL condition under which a call marked
     * {@link #ANSWER} was stored.
     */
    public static String insert(String storedWhen) {
        return """
                INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model, input_tokens,
                                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                                              latency_ms, outcome, provider_request_id)
                SELECT e.id, :org, :conflict, :attempt, e.pass, e.provider, e.model, e.input_tokens, e.output_tokens,
                       e.cache_read_tokens, e.cache_write_tokens, e.cost_usd, e.latency_ms,
                       CASE WHEN e.outcome <> 'answer' THEN e.outcome
                            WHEN %s THEN 'stored' ELSE 'discarded' END,
                       e.provider_request_id
                FROM jsonb_to_recordset(CAST(:calls AS jsonb)) AS e(
                    id uuid, pass text, provider text, model text, input_tokens bigint, output_tokens bigint,
                    cache_read_tokens bigint, cache_write_tokens bigint, cost_usd numeric, latency_ms integer,
                    outcome text, provider_request_id text)
                ON CONFLICT (id) DO UPDATE SET outcome = excluded.outcome""".formatted(storedWhen);
    }

    private static final String INSERT_NOT_STORED = insert("false");

    /**
     * Puts one answered call on record before its attempt ends (ahead of an escalation), as not stored; the
     * attempt's end writes the call again and settles its outcome. A call already on record is left alone.
     */
    public static void recordEarly(Handle handle, UUID orgId, UUID conflictId, int attempt, Entry call) {
        handle.createUpdate(INSERT_NOT_STORED.replace("DO UPDATE SET outcome = excluded.outcome", "DO NOTHING"))
                .bindMap(params(orgId, conflictId, attempt, List.of(call)))
                .execute();
    }

    /** The parameters of {@link #insert}. */
    public static Map<String, Object> params(UUID orgId, UUID conflictId, int attempt, List<Entry> calls) {
        return Map.of("org", orgId, "conflict", conflictId, "attempt", attempt, "calls", callsJson(calls));
    }

    static String callsJson(List<Entry> calls) {
        ArrayNode array = JSON.createArrayNode();
        for (Entry call : calls) {
            ObjectNode row = array.addObject()
                    .put("id", call.id().toString())
                    .put("pass", call.pass())
                    .put("provider", call.provider())
                    .put("model", call.model())
                    .put("input_tokens", call.inputTokens())
                    .put("output_tokens", call.outputTokens())
                    .put("cache_read_tokens", call.cacheReadTokens())
                    .put("cache_write_tokens", call.cacheWriteTokens())
                    .put("cost_usd", call.costUsd())
                    .put("latency_ms", call.latencyMs())
                    .put("outcome", call.outcome());
            if (call.requestId() != null) {
                row.put("provider_request_id", call.requestId());
            }
        }
        return array.toString();
    }

    /** The calls made for one conflict, oldest first; runs under that conflict's org scope. */
    public static List<ProviderCall> callsOf(Handle handle, UUID conflictId) {
        return handle.createQuery("""
                        SELECT attempt, pass, provider, model, input_tokens, output_tokens, cache_read_tokens,
                               cache_write_tokens, cost_usd, latency_ms, outcome, created_at
                        FROM llm_usage_events WHERE conflict_id = :id
                        ORDER BY created_at, attempt, pass = 'escalation'""")
                .bind("id", conflictId)
                .map((rs, ctx) -> new ProviderCall(rs.getInt("attempt"), rs.getString("pass"), rs.getString("provider"),
                        rs.getString("model"), rs.getLong("input_tokens"), rs.getLong("output_tokens"),
                        rs.getLong("cache_read_tokens"), rs.getLong("cache_write_tokens"),
                        Money.readable(rs.getBigDecimal("cost_usd")), rs.getInt("latency_ms"), rs.getString("outcome"),
                        rs.getTimestamp("created_at").toInstant()))
                .list();
    }

    /** Where the current month began, by the database clock, in UTC: budgets and usage reset then. */
    static final String MONTH_START = "date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'";

    /**
     * Month-to-date cost of the org in scope (of {@code orgId}), zero when it made no call. A function of the
     * schema (migration 8), so that a statement which may not need the sum does not set it up.
     */
    public static final String MONTH_SPEND_OF = "org_month_spend(%s)";

    /** Month-to-date cost of {@code orgId}, zero when it made no call this month. */
    public static BigDecimal monthSpend(Handle handle, UUID orgId) {
        return Money.readable(handle.createQuery("SELECT " + MONTH_SPEND_OF.formatted(":org")).bind("org", orgId)
                .mapTo(BigDecimal.class).one());
    }

    /** When the current month began, by the database clock (UTC). */
    public static Instant monthStart(Handle handle) {
        return handle.createQuery("SELECT " + MONTH_START).mapTo(java.time.OffsetDateTime.class).one().toInstant();
    }

    /**
     * Month-to-date calls, tokens and cost by model ({@code provider/model}), of {@code orgId} or, when it is
     * empty, of every org the transaction can see.
     */
    public static List<ModelUsage> monthToDate(Handle handle, Optional<UUID> orgId) {
        return handle.createQuery("""
                        SELECT provider || '/' || model AS model, count(*) AS calls,
                               sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
                               sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
                               sum(cost_usd) AS cost_usd
                        FROM llm_usage_events
                        WHERE created_at >= %s AND (CAST(:org AS uuid) IS NULL OR org_id = :org)
                        GROUP BY provider, model ORDER BY provider, model""".formatted(MONTH_START))
                .bind("org", orgId.orElse(null))
                .map((rs, ctx) -> new ModelUsage(rs.getString("model"), rs.getLong("calls"),
                        rs.getLong("input_tokens"), rs.getLong("output_tokens"), rs.getLong("cache_read_tokens"),
                        rs.getLong("cache_write_tokens"), Money.readable(rs.getBigDecimal("cost_usd"))))
                .list();
    }
}
