package io.mergesynthesis.bench;

import java.util.SplittableRandom;
import java.util.UUID;

/**
 * One conflict of the big-tenants database as years of use leave it, generated from its number alone (so that
 * every table's rows of one conflict agree without being kept in memory): finished, its merge stored or its
 * attempts used up, then seen and mostly resolved in the inbox; with the events it wrote, the provider calls it
 * cost and the attempts that failed on the way. The mix: {@value #MARKED_PERCENT}% marked
 * {@code synthesis_max_attempts_exceeded}; of the rest some needed a second attempt; in the inbox about a third
 * open, a sixth acknowledged and the rest resolved; three actions, half of them tool calls, over targets and
 * policy ids varied enough that a prefix search finds a few percent ({@link #COMMON_PREFIX}) or a handful
 * ({@link #RARE_PREFIX}).
 */
final class FinishedConflict {

    /** A target prefix about one conflict in twenty has: a search with something to find on every page. */
    static final String COMMON_PREFIX = "jira.";
    /** A policy id prefix about one conflict in 9,000 has: a search that must look far for a page. */
    static final String RARE_PREFIX = "pol-org-1017";
    /** A search nearly every conflict matches: every engine key and policy id holds it. */
    static final String NEARLY_ALL_SEARCH = "pol";
    /**
     * A search about one conflict in nine matches (its winning policy's number starts with 1), all of whose
     * trigrams but one are in nearly every key: the trigram index has little to narrow it by.
     */
    static final String SHARED_TRIGRAMS_SEARCH = "pol-org-1";

    static final int MARKED_PERCENT = 4;
    /** The worker's attempts before it marks a conflict (synthesis.maxAttempts in config.yml). */
    static final int MAX_ATTEMPTS = 3;
    /** The version of the merge check a merge stored now passed (MergeCheck.VERSION). */
    static final int CHECK_VERSION = 1;

    private static final String[] TOOLS = {"jira", "github", "slack", "salesforce", "gdrive", "zendesk", "notion",
            "confluence", "hubspot", "linear", "asana", "stripe", "okta", "pagerduty", "figma", "dropbox", "box",
            "workday", "servicenow", "snowflake"};
    private static final String[] VERBS = {"create_issue", "update_issue", "delete_issue", "post_message",
            "read_file", "write_file", "share_file", "invite_user", "remove_user", "export_report", "run_query",
            "refund_payment"};
    private static final String[] DATASETS = {"customers", "orders", "invoices", "employees", "tickets", "leads",
            "payments", "audit_log", "usage", "contracts"};
    private static final String[] SPACES = {"engineering", "legal", "hr", "finance", "sales", "support", "security",
            "product"};
    private static final String[] FAILURES = {"synthesizer", "synthesizer", "synthesizer", "invalid_json",
            "invalid_json", "router_resolve", "write_merge", "unknown"};
    /** Provider and model of each org's calls, by org number, as config.yml names them. */
    private static final String[][] MODELS = {
            {"anthropic", "claude-haiku-4-5"},
            {"anthropic", "claude-sonnet-4-5"},
            {"openai", "gpt-4.1-mini"},
            {"openai", "gpt-4.1"},
            {"anthropic", "claude-haiku-4-5"}};
    /** USD per million input and output tokens of each of {@link #MODELS}, as config.yml prices them, in micro-USD. */
    private static final long[][] PRICES = {
            {1_000_000, 5_000_000}, {3_000_000, 15_000_000}, {400_000, 1_600_000}, {2_000_000, 8_000_000},
            {1_000_000, 5_000_000}};

    final int number;
    final UUID id;
    final UUID org;
    final int orgNumber;
    final String action;
    final String target;
    final String winnerTarget;
    final String winnerPolicy;
    final String loserPolicy;
    final String winnerEffect;
    final String loserEffect;
    final UUID member;
    final String dedupKey;
    final long detectedAt;
    final long receivedAt;
    final boolean marked;
    final int attempts;
    final String failureReason;
    /** When the merge was stored, or when the last attempt failed for a marked conflict. */
    final long finishedAt;
    final String inboxStatus;
    final long acknowledgedAt;
    final long resolvedAt;
    final String resolution;
    final String resolutionNote;
    final int model;
    private final SplittableRandom random;

    /**
     * Conflict {@code number} of the shape's, received at {@code receivedAt}, with nothing later than {@code now}.
     */
    FinishedConflict(int number, TenantShape shape, UUID[] orgIds, long receivedAt, long now) {
        this.number = number;
        // Seeds spread by mix(), not in steps of SplittableRandom's own increment, so that no two conflicts'
        // sequences are one another's shifted by a few values (their ledger rows' ids would repeat).
        this.random = new SplittableRandom(mix(~(long) number));
        this.id = new UUID(mix(number * 2L + 1) & 0xFFFFFFFFFFFF0FFFL | 0x4000L,
                mix(number * 2L + 2) & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L);
        this.orgNumber = shape.orgOf(number);
        this.org = orgIds[orgNumber];
        this.model = orgNumber % MODELS.length;
        int kind = random.nextInt(10);
        if (kind < 5) {
            action = "tool_call";
            String tool = TOOLS[random.nextInt(TOOLS.length)];
            target = tool + "." + VERBS[random.nextInt(VERBS.length)];
            winnerTarget = tool + ".*";
        } else if (kind < 8) {
            action = "data_export";
            String dataset = DATASETS[random.nextInt(DATASETS.length)];
            target = "warehouse." + dataset + ".region_" + random.nextInt(12);
            winnerTarget = "warehouse." + dataset + ".*";
        } else {
            action = "knowledge_query";
            String space = SPACES[random.nextInt(SPACES.length)];
            target = "kb." + space + ".doc_" + random.nextInt(5_000);
            winnerTarget = "kb." + space + ".*";
        }
        winnerPolicy = "pol-org-" + (1_000 + random.nextInt(9_000));
        loserPolicy = "pol-mbr-" + (1_000 + random.nextInt(9_000));
        boolean deny = random.nextInt(3) > 0;
        winnerEffect = deny ? "deny" : "allow";
        loserEffect = deny ? "allow" : "deny";
        member = new UUID(random.nextLong() & 0xFFFFFFFFFFFF0FFFL | 0x4000L,
                random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L);
        dedupKey = action + "|" + target + "|" + winnerPolicy + "|" + loserPolicy + "|" + Integer.toString(number, 36);
        this.receivedAt = receivedAt;
        detectedAt = receivedAt - random.nextInt(5_000);
        marked = random.nextInt(100) < MARKED_PERCENT;
        attempts = marked ? MAX_ATTEMPTS : random.nextInt(100) < 6 ? 2 : 1;
        failureReason = marked ? FAILURES[random.nextInt(FAILURES.length)] : null;
        finishedAt = Math.min(now, receivedAt + 300 + random.nextInt(attempts == 1 ? 4_000 : 40_000));
        int inbox = random.nextInt(100);
        if (inbox < 33) {
            inboxStatus = "open";
            acknowledgedAt = Long.MIN_VALUE;
            resolvedAt = Long.MIN_VALUE;
            resolution = null;
            resolutionNote = null;
        } else {
            long seen = Math.min(now, finishedAt + 60_000L + random.nextLong(3L * 86_400_000L));
            if (inbox < 50) {
                inboxStatus = "acknowledged";
                acknowledgedAt = seen;
                resolvedAt = Long.MIN_VALUE;
                resolution = null;
                resolutionNote = null;
            } else {
                inboxStatus = "resolved";
                acknowledgedAt = random.nextBoolean() ? seen : Long.MIN_VALUE;
                resolvedAt = Math.min(now, seen + random.nextLong(86_400_000L));
                int how = random.nextInt(100);
                resolution = marked ? (how < 70 ? "manual" : "rejected_suggestion")
                        : how < 70 ? "accepted_suggestion" : how < 85 ? "rejected_suggestion" : "manual";
                resolutionNote = resolution.equals("manual") ? "narrowed " + loserPolicy + " by hand" : null;
            }
        }
    }

    long updatedAt() {
        return Math.max(finishedAt, Math.max(acknowledgedAt, resolvedAt));
    }

    String rulesJson() {
        return "[{\"policy_id\":\"" + winnerPolicy + "\",\"scope\":\"org\",\"scope_id\":\"" + org
                + "\",\"effect\":\"" + winnerEffect + "\",\"target\":\"" + winnerTarget + "\"},{\"policy_id\":\""
                + loserPolicy + "\",\"scope\":\"member\",\"scope_id\":\"" + member + "\",\"effect\":\"" + loserEffect
                + "\",\"target\":\"" + target + "\"}]";
    }

    /** The merge the stub synthesizer writes for a conflict of this shape (golden shape 1: org over member). */
    String mergeJson(StringBuilder scratch) {
        scratch.setLength(0);
        scratch.append("{\"schema_version\":1,\"conflict_id\":\"").append(id)
                .append("\",\"winner\":{\"policy_id\":\"").append(winnerPolicy)
                .append("\",\"scope\":\"org\",\"effect\":\"").append(winnerEffect)
                .append("\",\"target\":\"").append(winnerTarget)
                .append("\"},\"losers\":[{\"policy_id\":\"").append(loserPolicy)
                .append("\",\"scope\":\"member\",\"effect\":\"").append(loserEffect)
                .append("\",\"target\":\"").append(target)
                .append("\"}],\"resolved_effect\":\"").append(winnerEffect)
                .append("\",\"merged_rule\":{\"scope\":\"org\",\"scope_id\":\"").append(org)
                .append("\",\"effect\":\"").append(winnerEffect)
                .append("\",\"target\":\"").append(winnerTarget)
                .append("\",\"based_on_policy_id\":\"").append(winnerPolicy)
                .append("\"},\"loser_actions\":[{\"policy_id\":\"").append(loserPolicy)
                .append("\",\"action\":\"remove\",\"detail\":\"fully shadowed by ").append(winnerPolicy)
                .append(" (").append(winnerEffect).append(" on ").append(winnerTarget)
                .append(")\"}],\"rationale\":\"The org rule ").append(winnerPolicy)
                .append(" (").append(winnerEffect).append(" on ").append(winnerTarget)
                .append(") wins over the member rule ").append(loserPolicy)
                .append(" (").append(loserEffect).append(" on ").append(target)
                .append("). So the action stays ").append(winnerEffect.equals("deny") ? "denied" : "allowed")
                .append("; ").append(loserPolicy)
                .append(" is removed.\",\"confidence\":null,\"produced_by\":{\"synthesizer\":\"stub\","
                        + "\"provider\":\"stub\",\"model\":\"stub-deterministic-v1\"},\"generated_at\":\"")
                .append(java.time.Instant.ofEpochMilli(finishedAt)).append("\"}");
        return scratch.toString();
    }

    /** Its {@code policy_conflicts} row, in the column order of {@link TenantLoader#CONFLICT_COLUMNS}. */
    void conflictRow(CopyLine line, StringBuilder scratch) {
        line.uuid(id).uuid(org).text(dedupKey).text(action).text(target).text(rulesJson()).text(winnerPolicy)
                .time(detectedAt).time(receivedAt).text(marked ? "max_attempts_exceeded" : "done")
                .time(receivedAt).number(attempts).text(failureReason)
                .text(marked ? "synthesis_max_attempts_exceeded" : null);
        if (marked) {
            line.nul().nul().nul();
        } else {
            line.text(mergeJson(scratch)).number(CHECK_VERSION).time(finishedAt);
        }
        line.text(inboxStatus).time(acknowledgedAt).time(resolvedAt).text(resolution).text(resolutionNote)
                .time(updatedAt());
        line.end();
    }

    /** Its {@code conflict_events} rows, as ingest, the worker and the inbox write them, in the order they happened. */
    void eventRows(CopyLine line) {
        event(line, "conflict_detected", receivedAt, "{\"dedup_key\":\"" + dedupKey + "\",\"action\":\"" + action
                + "\",\"target\":\"" + target + "\",\"winner_policy_id\":\"" + winnerPolicy + "\",\"rule_count\":2}");
        if (marked) {
            event(line, "synthesis_failed_permanently", finishedAt, "{\"attempts\":" + attempts
                    + ",\"last_failure_reason\":\"" + failureReason + "\",\"failure_marker\":"
                    + "\"synthesis_max_attempts_exceeded\"}");
        } else {
            event(line, "merge_synthesized", finishedAt, "{\"attempt\":" + attempts + ",\"resolved_effect\":\""
                    + winnerEffect + "\",\"merged_rule\":{\"scope\":\"org\",\"effect\":\"" + winnerEffect
                    + "\",\"target\":\"" + winnerTarget + "\"},\"check\":{\"result\":\"passed\",\"version\":"
                    + CHECK_VERSION + "}}");
        }
        if (acknowledgedAt != Long.MIN_VALUE) {
            event(line, "conflict_acknowledged", acknowledgedAt, "{}");
        }
        if (resolvedAt != Long.MIN_VALUE) {
            event(line, "conflict_resolved", resolvedAt, "{\"resolution\":\"" + resolution + "\"}");
        }
    }

    private void event(CopyLine line, String type, long at, String details) {
        line.uuid(org).uuid(id).text(type).time(at).text(details);
        line.end();
    }

    /**
     * Its {@code llm_usage_events} rows: one call per attempt, the last one's answer stored, the others failed
     * (or, for a marked conflict, every one failed or refused by the merge check).
     */
    void usageRows(CopyLine line) {
        String[] m = MODELS[model];
        for (int attempt = 1; attempt <= attempts; attempt++) {
            boolean last = attempt == attempts;
            String outcome = !marked && last ? "stored" : random.nextInt(4) == 0 ? "refused" : "failed";
            long input = 900 + random.nextInt(600);
            long output = outcome.equals("failed") ? random.nextInt(50) : 250 + random.nextInt(300);
            long cacheRead = m[0].equals("anthropic") && random.nextBoolean() ? 4_096 : 0;
            long micro = input * PRICES[model][0] + output * PRICES[model][1];
            long at = finishedAt - (long) (attempts - attempt) * 2_000;
            line.uuid(new UUID(random.nextLong() & 0xFFFFFFFFFFFF0FFFL | 0x4000L,
                            random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L))
                    .uuid(org).uuid(id).number(attempt).text("primary").text(m[0]).text(m[1])
                    .number(input).number(output).number(cacheRead).number(0)
                    .decimal(nanoUsd(micro)).number(400 + random.nextInt(2_500)).text(outcome)
                    .text("req_" + Long.toHexString(random.nextLong())).time(at);
            line.end();
        }
    }

    /** Its {@code synthesis_attempt_history} rows: one per attempt that did not store a merge. */
    void historyRows(CopyLine line) {
        for (int attempt = 1; attempt < attempts || (marked && attempt == attempts); attempt++) {
            String reason = failureReason != null ? failureReason : "synthesizer";
            boolean last = attempt == attempts;
            long at = finishedAt - (long) (attempts - attempt) * 2_000;
            line.uuid(org).uuid(id).number(attempt).text(last ? "permanent_failure" : "transient_failure")
                    .text(reason).text("the provider's answer could not be used (" + reason + ")")
                    .time(at).time(last ? Long.MIN_VALUE : at + 1_000);
            line.end();
        }
    }

    /** USD from tokens times micro-USD per million tokens (so 10^-12 USD), to the nine places the ledger keeps. */
    private static String nanoUsd(long tokensTimesMicros) {
        return java.math.BigDecimal.valueOf(tokensTimesMicros, 12).setScale(9, java.math.RoundingMode.HALF_UP)
                .toPlainString();
    }

    /** The 64-bit finaliser of SplitMix64: distinct numbers in, well spread ids out. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
