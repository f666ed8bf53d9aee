package io.mergesynthesis.service.db;

import java.util.UUID;

/** Conflicts written as a tenant writes them, with their detected event, for the tests of this package. */
final class TenantConflicts {

    private TenantConflicts() {
    }

    static UUID insert(ScopedTransactions transactions, UUID org, String dedupKey) {
        UUID id = UUID.randomUUID();
        transactions.inOrg(org, h -> {
            h.createUpdate("""
                            INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                            VALUES (:id, :org, :key, 'tool_call', 'jira.create_issue', '[]', 'p', now())""")
                    .bind("id", id).bind("org", org).bind("key", dedupKey).execute();
            EventLog.append(h, org, id, EventLog.EventType.CONFLICT_DETECTED, "{}");
            return null;
        });
        return id;
    }
}
