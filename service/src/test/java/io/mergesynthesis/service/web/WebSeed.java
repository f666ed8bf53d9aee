package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.MergeCheck;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Conflicts for the web tests, ingested through the real API, and the worker's side of them (merges, failures,
 * provider calls, attempt history) written as the superuser, as only a test may.
 */
final class WebSeed {

    static final ObjectMapper JSON = new ObjectMapper();

    private WebSeed() {
    }

    /** An org rule that denies {@code family.*} over a member rule that allows {@code target}. */
    static String report(UUID org, String dedupKey, String target) {
        ObjectNode r = JSON.createObjectNode();
        r.put("org_id", org.toString());
        r.put("dedup_key", dedupKey);
        r.put("action", "tool_call");
        r.put("target", target);
        ArrayNode rules = r.putArray("rules");
        rules.addObject().put("policy_id", "pol-org-17").put("scope", "org").put("scope_id", org.toString())
                .put("effect", "deny").put("target", family(target));
        rules.addObject().put("policy_id", "pol-mbr-42").put("scope", "member").put("scope_id", "member-31")
                .put("effect", "allow").put("target", target);
        r.put("winner_policy_id", "pol-org-17");
        r.put("detected_at", "2026-11-20T10:15:00Z");
        return r.toString();
    }

    static String batch(List<String> reports) {
        return "{\"conflicts\": [" + String.join(",", reports) + "]}";
    }

    static List<UUID> ingest(TestApp app, String token, String body) {
        var response = app.post(token, "/v1/conflicts", body);
        assertThat(response.statusCode()).as(response.body()).isIn(200, 201);
        var json = Seed.parse(response.body());
        List<UUID> ids = new ArrayList<>();
        if (json.has("results")) {
            json.get("results").forEach(n -> ids.add(UUID.fromString(n.get("id").asText())));
        } else {
            ids.add(UUID.fromString(json.get("id").asText()));
        }
        return ids;
    }

    static UUID one(TestApp app, String token, UUID org, String key, String target) {
        return ingest(app, token, report(org, key, target)).get(0);
    }

    /** What a worker would store for {@link #report}: the org rule stays, the member rule goes. */
    static String merge(UUID conflict, UUID org, String target, String rationale) {
        ObjectNode m = JSON.createObjectNode();
        m.put("schema_version", 1);
        m.put("conflict_id", conflict.toString());
        m.putObject("winner").put("policy_id", "pol-org-17").put("scope", "org").put("effect", "deny")
                .put("target", family(target));
        m.putArray("losers").addObject().put("policy_id", "pol-mbr-42").put("scope", "member").put("effect", "allow")
                .put("target", target);
        m.put("resolved_effect", "deny");
        m.putObject("merged_rule").put("scope", "org").put("scope_id", org.toString()).put("effect", "deny")
                .put("target", family(target)).put("based_on_policy_id", "pol-org-17");
        m.putArray("loser_actions").addObject().put("policy_id", "pol-mbr-42").put("action", "remove")
                .put("detail", "fully shadowed by pol-org-17 (deny on " + family(target) + ")");
        m.put("rationale", rationale);
        m.put("confidence", 0.86);
        m.putObject("produced_by").put("synthesizer", "llm").put("provider", "anthropic").put("model", "model-large");
        m.put("generated_at", "2026-11-20T12:00:00Z");
        return m.toString();
    }

    /** A merge as the worker stores it now: with the version of the merge check it passed. */
    static void synthesized(Jdbi superuser, UUID conflict, String mergeJson) {
        stored(superuser, conflict, mergeJson, MergeCheck.VERSION);
    }

    /** A merge stored before the merge check existed: no check version. */
    static void synthesizedBeforeTheCheck(Jdbi superuser, UUID conflict, String mergeJson) {
        stored(superuser, conflict, mergeJson, null);
    }

    private static void stored(Jdbi superuser, UUID conflict, String mergeJson, Integer checkVersion) {
        superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET synthesis_state = 'done', attempts = attempts + 1,
                               suggested_merge = CAST(:merge AS jsonb), merge_check_version = :checkVersion,
                               synthesized_at = now()
                         WHERE id = :id""")
                .bind("id", conflict).bind("merge", mergeJson).bind("checkVersion", checkVersion).execute());
    }

    /**
     * A member rule that allows {@code target}, chosen by the engine over the org's rule that denies
     * {@code family.*}: the winner overrides a stronger layer.
     */
    static String memberWinsReport(UUID org, String dedupKey, String target) {
        ObjectNode r = (ObjectNode) Seed.parse(report(org, dedupKey, target));
        r.put("winner_policy_id", "pol-mbr-42");
        return r.toString();
    }

    /** What passes the check for {@link #memberWinsReport}: the member rule stands, the org rule is narrowed. */
    static String memberWinsMerge(UUID conflict, UUID org, String target) {
        ObjectNode m = JSON.createObjectNode();
        m.put("schema_version", 1);
        m.put("conflict_id", conflict.toString());
        m.putObject("winner").put("policy_id", "pol-mbr-42").put("scope", "member").put("effect", "allow")
                .put("target", target);
        m.putArray("losers").addObject().put("policy_id", "pol-org-17").put("scope", "org").put("effect", "deny")
                .put("target", family(target));
        m.put("resolved_effect", "allow");
        m.putObject("merged_rule").put("scope", "member").put("scope_id", "member-31").put("effect", "allow")
                .put("target", target).put("based_on_policy_id", "pol-mbr-42");
        m.putArray("loser_actions").addObject().put("policy_id", "pol-org-17").put("action", "narrow")
                .put("detail", "deny " + family(target) + " except " + target);
        m.put("rationale", "The engine chose the member rule; the org rule is narrowed around it.");
        m.put("confidence", 0.74);
        m.putObject("produced_by").put("synthesizer", "llm").put("provider", "anthropic").put("model", "model-large");
        m.put("generated_at", "2026-11-20T12:00:00Z");
        return m.toString();
    }

    /**
     * Gives a conflict of {@link #report} another target, in the row and in the member rule, as a row stored
     * before ingest had a target grammar may hold: the pages must still show it as text.
     */
    static void retarget(Jdbi superuser, UUID conflict, String target) {
        superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET target = :target,
                               rules = jsonb_set(rules, '{1,target}', to_jsonb(CAST(:target AS text)))
                         WHERE id = :id""")
                .bind("id", conflict).bind("target", target).execute());
    }

    static void failed(Jdbi superuser, UUID conflict, String reason) {
        superuser.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET synthesis_state = 'max_attempts_exceeded', attempts = 3,
                               last_failure_reason = :reason, failure_marker = 'synthesis_max_attempts_exceeded'
                         WHERE id = :id""")
                .bind("id", conflict).bind("reason", reason).execute());
    }

    static void state(Jdbi superuser, UUID conflict, String state) {
        superuser.useHandle(h -> h.createUpdate("UPDATE policy_conflicts SET synthesis_state = :state WHERE id = :id")
                .bind("id", conflict).bind("state", state).execute());
    }

    static void call(Jdbi superuser, UUID org, UUID conflict, int attempt, String pass, String provider, String model,
                     long in, long out, String cost, String outcome) {
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                      input_tokens, output_tokens, cost_usd, latency_ms, outcome)
                        VALUES (:id, :org, :conflict, :attempt, :pass, :provider, :model, :in, :out, :cost, 1840,
                                :outcome)""")
                .bind("id", UUID.randomUUID()).bind("org", org).bind("conflict", conflict).bind("attempt", attempt)
                .bind("pass", pass).bind("provider", provider).bind("model", model).bind("in", in).bind("out", out)
                .bind("cost", new BigDecimal(cost)).bind("outcome", outcome).execute());
    }

    static void attempt(Jdbi superuser, UUID org, UUID conflict, int attempt, String outcome, String reason,
                        String detail) {
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason, detail,
                                                               not_before)
                        VALUES (:org, :conflict, :attempt, :outcome, :reason, :detail, now() + interval '2 seconds')""")
                .bind("org", org).bind("conflict", conflict).bind("attempt", attempt).bind("outcome", outcome)
                .bind("reason", reason).bind("detail", detail).execute());
    }

    static void budget(Jdbi superuser, UUID org, String model, String budget) {
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO org_synthesis_settings (org_id, model, monthly_budget_usd) VALUES (:org, :model, :budget)
                        ON CONFLICT (org_id) DO UPDATE SET model = EXCLUDED.model,
                                                           monthly_budget_usd = EXCLUDED.monthly_budget_usd""")
                .bind("org", org).bind("model", model).bind("budget", budget == null ? null : new BigDecimal(budget))
                .execute());
    }

    /** {@code jira.create_issue} belongs to {@code jira.*}. */
    static String family(String target) {
        int dot = target.indexOf('.');
        return dot > 0 && target.indexOf('<') < 0 ? target.substring(0, dot) + ".*" : "*";
    }
}
