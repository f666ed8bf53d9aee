package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.Money;
import io.mergesynthesis.service.core.SynthesisSettings;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Per-org synthesis settings ({@code org_synthesis_settings}: a model override and a monthly budget), and the
 * one statement that lets an org's conflicts out of {@code waiting_budget} again; all of their SQL.
 */
public final class OrgSynthesisSettings {

    private OrgSynthesisSettings() {
    }

    /** The org's settings; its defaults when none were ever set. Runs under that org's scope. */
    public static SynthesisSettings of(Handle handle, UUID orgId) {
        return handle.createQuery("SELECT org_id, model, monthly_budget_usd, updated_at FROM org_synthesis_settings "
                        + "WHERE org_id = :org")
                .bind("org", orgId)
                .map((rs, ctx) -> settings(rs))
                .findOne()
                .orElse(SynthesisSettings.none(orgId));
    }

    /** Every org that has settings; runs cross-tenant, for the operator. */
    public static List<SynthesisSettings> all(Handle handle) {
        return handle.createQuery("SELECT org_id, model, monthly_budget_usd, updated_at FROM org_synthesis_settings "
                        + "ORDER BY org_id")
                .map((rs, ctx) -> settings(rs))
                .list();
    }

    /** How many orgs have each model override; runs cross-tenant, for the health check. */
    public static java.util.Map<String, Long> orgsByModel(Handle handle) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        handle.createQuery("SELECT model, count(*) AS orgs FROM org_synthesis_settings WHERE model IS NOT NULL "
                        + "GROUP BY model")
                .map((rs, ctx) -> counts.put(rs.getString("model"), rs.getLong("orgs")))
                .list();
        return counts;
    }

    private static SynthesisSettings settings(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new SynthesisSettings(rs.getObject("org_id", UUID.class), rs.getString("model"),
                Money.readable(rs.getBigDecimal("monthly_budget_usd")), rs.getTimestamp("updated_at").toInstant());
    }

    /** Replaces the org's settings. Runs under that org's scope. */
    public static SynthesisSettings put(Handle handle, UUID orgId, String model, BigDecimal monthlyBudgetUsd) {
        return handle.createQuery("""
                        INSERT INTO org_synthesis_settings (org_id, model, monthly_budget_usd, updated_at)
                        VALUES (:org, :model, :budget, now())
                        ON CONFLICT (org_id) DO UPDATE
                            SET model = excluded.model, monthly_budget_usd = excluded.monthly_budget_usd,
                                updated_at = excluded.updated_at
                        RETURNING org_id, model, monthly_budget_usd, updated_at""")
                .bind("org", orgId)
                .bind("model", model)
                .bind("budget", monthlyBudgetUsd)
                .map((rs, ctx) -> settings(rs))
                .one();
    }

    /**
     * Puts back to pending, claimable at once, the {@code waiting_budget} conflicts of every org (of
     * {@code orgId} alone when given) whose month-to-date spend is below its budget again, or that has no budget
     * any more; wakes idle workers when any were let out. Returns how many. Under a tenant scope it sees only
     * that org; cross-tenant it sees them all.
     */
    public static int resumeWaiting(Handle handle, Optional<UUID> orgId) {
        int resumed = handle.createUpdate("""
                        UPDATE policy_conflicts c
                        SET synthesis_state = 'pending', not_before = now(), updated_at = now()
                        WHERE c.synthesis_state = 'waiting_budget'
                          AND (CAST(:org AS uuid) IS NULL OR c.org_id = :org)
                          AND c.org_id IN (
                              SELECT w.org_id
                              FROM (SELECT DISTINCT org_id FROM policy_conflicts
                                    WHERE synthesis_state = 'waiting_budget') w
                              LEFT JOIN org_synthesis_settings s ON s.org_id = w.org_id
                              WHERE s.monthly_budget_usd IS NULL
                                 OR s.monthly_budget_usd > %s)""".formatted(UsageLedger.MONTH_SPEND_OF.formatted("w.org_id")))
                .bind("org", orgId.orElse(null))
                .execute();
        if (resumed > 0) {
            ConflictStore.notifyPending(handle);
        }
        return resumed;
    }
}
