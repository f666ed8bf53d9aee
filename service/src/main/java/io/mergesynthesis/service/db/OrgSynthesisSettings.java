package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.core.Money;
import io.mergesynthesis.service.core.SynthesisSettings;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Per-org synthesis settings ({@code org_synthesis_settings}: a model override, a monthly budget and a weight), and the
 * one statement that lets an org's conflicts out of {@code waiting_budget} again; all of their SQL.
 */
public final class OrgSynthesisSettings {

    private OrgSynthesisSettings() {
    }

    /** The org's settings; its defaults when none were ever set. Runs under that org's scope. */
    public static SynthesisSettings of(Handle handle, UUID orgId) {
        return handle.createQuery(OF)
                .bind("org", orgId)
                .map((rs, ctx) -> settings(rs))
                .findOne()
                .orElse(SynthesisSettings.none(orgId));
    }

    /** Every org that has settings; runs cross-tenant, for the operator. */
    public static List<SynthesisSettings> all(Handle handle) {
        return handle.createQuery(ALL)
                .map((rs, ctx) -> settings(rs))
                .list();
    }

    /** How many orgs have each model override; runs cross-tenant, for the health check. */
    public static java.util.Map<String, Long> orgsByModel(Handle handle) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        handle.createQuery(ORGS_BY_MODEL)
                .map((rs, ctx) -> counts.put(rs.getString("model"), rs.getLong("orgs")))
                .list();
        return counts;
    }

    private static SynthesisSettings settings(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new SynthesisSettings(rs.getObject("org_id", UUID.class), rs.getString("model"),
                Money.readable(rs.getBigDecimal("monthly_budget_usd")), rs.getInt("weight"),
                Lane.ofStored(rs.getString("lane")), rs.getTimestamp("updated_at").toInstant());
    }

    /**
     * Replaces the org's settings. Runs under that org's scope.
     *
     * @param weight null to keep the org's weight (1 for an org without settings)
     * @param lane   null to keep the org's lane (interactive for an org without settings)
     */
    public static SynthesisSettings put(Handle handle, UUID orgId, String model, BigDecimal monthlyBudgetUsd,
                                        Integer weight, Lane lane) {
        return handle.createQuery(PUT)
                .bind("org", orgId)
                .bind("model", model)
                .bind("budget", monthlyBudgetUsd)
                .bind("weight", weight)
                .bind("lane", lane == null ? null : lane.wireName())
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
        int resumed = handle.createUpdate(RESUME_WAITING)
                .bind("org", orgId.orElse(null))
                .execute();
        if (resumed > 0) {
            ConflictStore.notifyPending(handle);
        }
        return resumed;
    }

    private static final String OF = SqlFiles.of(OrgSynthesisSettings.class, "of");
    private static final String ALL = SqlFiles.of(OrgSynthesisSettings.class, "all");
    private static final String ORGS_BY_MODEL = SqlFiles.of(OrgSynthesisSettings.class, "orgs_by_model");
    private static final String PUT = SqlFiles.of(OrgSynthesisSettings.class, "put");
    private static final String RESUME_WAITING = SqlFiles.of(OrgSynthesisSettings.class, "resume_waiting");
}
