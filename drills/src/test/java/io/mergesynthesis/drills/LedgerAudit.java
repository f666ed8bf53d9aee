package io.mergesynthesis.drills;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the usage ledger ({@code llm_usage_events}) says about the provider calls, read as the superuser so that
 * every org's rows are seen. The end states a drill holds the LLM path to: each answered call recorded once, and
 * exactly one {@code stored} row per stored merge, naming the model that wrote it.
 */
final class LedgerAudit {

    /** The stand-in's request ids: {@code req-standin-<n>} (OpenAI dialect) and {@code req_standin_<n>} (Anthropic). */
    private static final Pattern STAND_IN_REQUEST = Pattern.compile("req[-_]standin[-_](\\d+)");

    private LedgerAudit() {
    }

    /**
     * The ledger, counted.
     *
     * @param rows ledger rows in all
     * @param byOutcome rows per outcome ({@code stored}, {@code discarded}, {@code failed}, {@code rate_limited})
     * @param byPass rows per pass ({@code primary}, {@code escalation})
     * @param byModel rows per {@code provider/model}
     * @param withoutRequestId rows that carry no provider request id
     * @param repeatedRequestIds request ids that more than one row carries: a call recorded twice
     * @param repeatedStored (conflict, attempt, pass) triples with more than one {@code stored} row
     * @param conflictsWithoutOneStored conflicts whose {@code stored} rows are not exactly one
     * @param storedNotTheMerge {@code stored} rows whose provider and model are not those of the stored merge
     * @param mergesByEscalation stored merges written by the escalation pass
     */
    record Tally(long rows, Map<String, Long> byOutcome, Map<String, Long> byPass, Map<String, Long> byModel,
                 long withoutRequestId, long repeatedRequestIds, long repeatedStored, long conflictsWithoutOneStored,
                 long storedNotTheMerge, long mergesByEscalation) {

        long outcome(String outcome) {
            return byOutcome.getOrDefault(outcome, 0L);
        }

        @Override
        public String toString() {
            return rows + " rows; by outcome " + byOutcome + "; by pass " + byPass + "; by model " + byModel;
        }
    }

    static Tally tally(DrillDatabase database) {
        return new Tally(
                database.count("SELECT count(*) FROM llm_usage_events"),
                grouped(database, "outcome"),
                grouped(database, "pass"),
                grouped(database, "provider || '/' || model"),
                database.count("SELECT count(*) FROM llm_usage_events WHERE provider_request_id IS NULL"),
                database.count("SELECT count(*) FROM (SELECT provider_request_id FROM llm_usage_events"
                        + " WHERE provider_request_id IS NOT NULL GROUP BY provider_request_id"
                        + " HAVING count(*) > 1) repeated"),
                database.count("SELECT count(*) FROM (SELECT 1 FROM llm_usage_events WHERE outcome = 'stored'"
                        + " GROUP BY conflict_id, attempt, pass HAVING count(*) > 1) repeated"),
                database.count("SELECT count(*) FROM policy_conflicts c WHERE (SELECT count(*)"
                        + " FROM llm_usage_events u WHERE u.conflict_id = c.id AND u.outcome = 'stored') <> 1"),
                database.count("SELECT count(*) FROM llm_usage_events u JOIN policy_conflicts c ON c.id = u.conflict_id"
                        + " WHERE u.outcome = 'stored' AND (c.suggested_merge IS NULL"
                        + " OR c.suggested_merge -> 'produced_by' ->> 'provider' IS DISTINCT FROM u.provider"
                        + " OR c.suggested_merge -> 'produced_by' ->> 'model' IS DISTINCT FROM u.model)"),
                database.count("SELECT count(*) FROM llm_usage_events WHERE outcome = 'stored'"
                        + " AND pass = 'escalation'"));
    }

    /** The serial numbers of the stand-in's requests that the ledger records (the stand-in numbers them 1, 2, ...). */
    static Set<Long> standInSerials(DrillDatabase database) {
        Set<Long> serials = new HashSet<>();
        for (String id : database.list("SELECT provider_request_id FROM llm_usage_events"
                + " WHERE provider_request_id IS NOT NULL", String.class)) {
            serial(id).ifPresent(serials::add);
        }
        return serials;
    }

    /** The stand-in's serial number in a request id, if it is one of the stand-in's. */
    static Optional<Long> serial(String requestId) {
        Matcher matcher = STAND_IN_REQUEST.matcher(requestId);
        return matcher.matches() ? Optional.of(Long.parseLong(matcher.group(1))) : Optional.empty();
    }

    /** Attempts handed back uncounted, per reason (a rate limit, a concurrency limit, a lease too short...). */
    static Map<String, Long> deferralsByReason(DrillDatabase database) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String[] row : database.rows("SELECT reason, count(*) FROM synthesis_attempt_history"
                + " WHERE outcome = 'deferred' GROUP BY reason ORDER BY reason")) {
            counts.put(row[0], Long.parseLong(row[1]));
        }
        return counts;
    }

    /** Counted failures, per reason and whether a provider request or the invoke timed out. */
    static Map<String, Long> failuresByReason(DrillDatabase database) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String[] row : database.rows("SELECT reason || CASE WHEN detail LIKE '%did not answer within%'"
                + " THEN ' (timeout)' ELSE '' END, count(*) FROM synthesis_attempt_history"
                + " WHERE outcome IN ('transient_failure', 'permanent_failure') GROUP BY 1 ORDER BY 1")) {
            counts.put(row[0], Long.parseLong(row[1]));
        }
        return counts;
    }

    private static Map<String, Long> grouped(DrillDatabase database, String expression) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String[] row : database.rows("SELECT " + expression + ", count(*) FROM llm_usage_events"
                + " GROUP BY 1 ORDER BY 1")) {
            counts.put(row[0], Long.parseLong(row[1]));
        }
        return counts;
    }
}
