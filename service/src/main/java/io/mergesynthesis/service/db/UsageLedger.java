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
 * The usage ledger ({@code llm_usage_events}): one row per provider call that the provider answered. The worker
 * writes a call's rows with the statement that records the attempt's outcome (the merge, a retry, a hand-back;
 * those statements are the worker's, beside {@code worker.store.ConflictLeases}), so that they commit together;
 * the API reads them for usage, budgets and the conflict view. Each statement here is in its own file beside this
 * class ({@link SqlFiles}).
 *
 * <p>Each row's id and {@code created_at} are the call's own, so a call written twice (sent again after a commit whose answer was lost,
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
    /** The lane of a call made on its own, as each call was before the batch lane. */
    public static final String INTERACTIVE_LANE = "interactive";
    /** The lane of a request answered in a provider's batch. */
    public static final String BATCH_LANE = "batch";

    private static final ObjectMapper JSON = new ObjectMapper();

    private UsageLedger() {
    }

    /**
     * One answered provider call, as the worker hands it to the ledger. {@code answeredAt} becomes the row's
     * {@code created_at}, which names the month's partition the row is in: it is fixed when the provider answered
     * and travels with the call, so that every write of the call finds the same row.
     */
    public record Entry(UUID id, String pass, String provider, String model, long inputTokens, long outputTokens,
                        long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd, long latencyMs,
                        String outcome, String requestId, Instant answeredAt, String lane) {

        public Entry {
            java.util.Objects.requireNonNull(answeredAt, "answeredAt");
            java.util.Objects.requireNonNull(lane, "lane");
        }

        /** A call of the interactive lane, one request on its own. */
        public Entry(UUID id, String pass, String provider, String model, long inputTokens, long outputTokens,
                     long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd, long latencyMs,
                     String outcome, String requestId, Instant answeredAt) {
            this(id, pass, provider, model, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd,
                    latencyMs, outcome, requestId, answeredAt, INTERACTIVE_LANE);
        }

        /** The same call with another outcome. */
        public Entry withOutcome(String other) {
            return new Entry(id, pass, provider, model, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
                    costUsd, latencyMs, other, requestId, answeredAt, lane);
        }

        /** The same call, answered in another lane. */
        public Entry inLane(String other) {
            return new Entry(id, pass, provider, model, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
                    costUsd, latencyMs, outcome, requestId, answeredAt, other);
        }
    }

    /**
     * Puts one answered call on record before its attempt ends (ahead of an escalation), as not stored; the
     * attempt's end writes the call again and settles its outcome. A call already on record is left alone.
     */
    public static void recordEarly(Handle handle, UUID orgId, UUID conflictId, int attempt, Entry call) {
        handle.createUpdate(RECORD_EARLY)
                .bindMap(Map.of("org", orgId, "conflict", conflictId, "attempt", attempt,
                        "calls", callsJson(List.of(call))))
                .execute();
    }

    private static final String RECORD_EARLY = SqlFiles.of(UsageLedger.class, "record_early");

    /**
     * {@code calls} as the JSON array the ledger's inserts read ({@code :calls}): the worker writes a call's rows
     * with the statement that ends its attempt.
     */
    public static String callsJson(List<Entry> calls) {
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
                    .put("outcome", call.outcome())
                    .put("created_at", call.answeredAt().toString())
                    .put("lane", call.lane());
            if (call.requestId() != null) {
                row.put("provider_request_id", call.requestId());
            }
        }
        return array.toString();
    }

    /** The calls made for one conflict, oldest first; runs under that conflict's org scope. */
    public static List<ProviderCall> callsOf(Handle handle, UUID conflictId) {
        return handle.createQuery(CALLS_OF)
                .bind("id", conflictId)
                .map((rs, ctx) -> new ProviderCall(rs.getInt("attempt"), rs.getString("pass"), rs.getString("provider"),
                        rs.getString("model"), rs.getLong("input_tokens"), rs.getLong("output_tokens"),
                        rs.getLong("cache_read_tokens"), rs.getLong("cache_write_tokens"),
                        Money.readable(rs.getBigDecimal("cost_usd")), rs.getInt("latency_ms"), rs.getString("outcome"),
                        rs.getTimestamp("created_at").toInstant(), rs.getString("lane")))
                .list();
    }

    /** Month-to-date cost of {@code orgId}, zero when it made no call this month. */
    public static BigDecimal monthSpend(Handle handle, UUID orgId) {
        return Money.readable(handle.createQuery(MONTH_SPEND).bind("org", orgId)
                .mapTo(BigDecimal.class).one());
    }

    /** When the current month began, by the database clock (UTC). */
    public static Instant monthStart(Handle handle) {
        return handle.createQuery(MONTH_START).mapTo(java.time.OffsetDateTime.class).one().toInstant();
    }

    /**
     * Month-to-date calls, tokens and cost by model ({@code provider/model}), of {@code orgId} or, when it is
     * empty, of every org the transaction can see.
     */
    public static List<ModelUsage> monthToDate(Handle handle, Optional<UUID> orgId) {
        return handle.createQuery(MONTH_TO_DATE)
                .bind("org", orgId.orElse(null))
                .map((rs, ctx) -> new ModelUsage(rs.getString("model"), rs.getString("lane"), rs.getLong("calls"),
                        rs.getLong("input_tokens"), rs.getLong("output_tokens"), rs.getLong("cache_read_tokens"),
                        rs.getLong("cache_write_tokens"), Money.readable(rs.getBigDecimal("cost_usd"))))
                .list();
    }

    private static final String CALLS_OF = SqlFiles.of(UsageLedger.class, "calls_of");
    private static final String MONTH_SPEND = SqlFiles.of(UsageLedger.class, "month_spend");
    private static final String MONTH_START = SqlFiles.of(UsageLedger.class, "month_start");
    private static final String MONTH_TO_DATE = SqlFiles.of(UsageLedger.class, "month_to_date");
}
