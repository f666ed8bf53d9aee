package io.mergesynthesis.service.web;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Many orgs at once, written straight into the tables: each with one conflict, every third with a paid call this
 * month, and every org but each fifth with a name ({@code Org 0001}, ...), for the operator's list at scale.
 */
final class ManyOrgs {

    private ManyOrgs() {
    }

    /** The orgs, in the order of their number; {@code names.get(i)} is null for an org left without a name. */
    record Seeded(List<UUID> orgs, List<String> names) {
    }

    static Seeded seed(Jdbi superuser, int count) {
        List<UUID> orgs = new ArrayList<>();
        List<String> names = new ArrayList<>();
        superuser.useTransaction(h -> {
            for (int i = 0; i < count; i++) {
                UUID org = UUID.randomUUID();
                UUID conflict = UUID.randomUUID();
                orgs.add(org);
                h.createUpdate("""
                                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules,
                                                              winner_policy_id, detected_at)
                                VALUES (:id, :org, 'many-orgs', 'tool_call', 'tool.action', '[]'::jsonb, 'pol-1', now())""")
                        .bind("id", conflict).bind("org", org).execute();
                if (i % 3 == 0) {
                    h.createUpdate("""
                                    INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                                  input_tokens, output_tokens, cost_usd, latency_ms,
                                                                  outcome)
                                    VALUES (:id, :org, :conflict, 1, 'primary', 'openai', 'model-small', 900, 200,
                                            :cost, 1200, 'stored')""")
                            .bind("id", UUID.randomUUID()).bind("org", org).bind("conflict", conflict)
                            .bind("cost", new java.math.BigDecimal("0.0001").multiply(java.math.BigDecimal.valueOf(i + 1)))
                            .execute();
                }
                String name = i % 5 == 4 ? null : String.format("Org %04d", i);
                names.add(name);
                if (name != null) {
                    h.createUpdate("INSERT INTO org_names (org_id, name) VALUES (:org, :name)")
                            .bind("org", org).bind("name", name).execute();
                }
            }
        });
        return new Seeded(orgs, names);
    }
}
