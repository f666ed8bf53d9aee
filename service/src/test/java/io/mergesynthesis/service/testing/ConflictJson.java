package io.mergesynthesis.service.testing;

import java.util.UUID;

/** Ingest bodies for tests: a valid conflict report with the given org and dedup key. */
public final class ConflictJson {

    private ConflictJson() {
    }

    public static String report(UUID org, String dedupKey) {
        return report(org, dedupKey, "jira.create_issue");
    }

    /** An org rule denying the target's family ({@code jira.*} for {@code jira.create_issue}) over a member's allow. */
    public static String report(UUID org, String dedupKey, String target) {
        return """
                {"org_id": "%s", "dedup_key": "%s", "action": "tool_call", "target": "%s",
                 "rules": [{"policy_id": "pol-org-1", "scope": "org", "scope_id": "%s", "effect": "deny", "target": "%s"},
                           {"policy_id": "pol-mbr-2", "scope": "member", "scope_id": "member-7", "effect": "allow", "target": "%s"}],
                 "winner_policy_id": "pol-org-1", "detected_at": "2026-11-20T10:15:00Z"}"""
                .formatted(org, dedupKey, target, org, family(target), target);
    }

    private static String family(String target) {
        int dot = target.indexOf('.');
        return dot > 0 ? target.substring(0, dot) + ".*" : "*";
    }

    public static String batch(String... reports) {
        return "{\"conflicts\": [" + String.join(",", reports) + "]}";
    }
}
