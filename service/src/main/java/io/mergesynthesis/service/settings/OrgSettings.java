package io.mergesynthesis.service.settings;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.core.SynthesisSettings;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.LlmBatches;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;

/**
 * An org's model, monthly budget and weight: reading them, and changing them the one way both the API and the
 * operator page do. The rules for the values are {@link MonthlyBudget}, {@link ClaimWeight} and the catalog's
 * {@link ModelCatalog#unusable};
 * the front ends check them first and say what was wrong in their own form.
 */
public final class OrgSettings {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ScopedTransactions transactions;
    private final ModelCatalog models;
    private final Consumer<UUID> changed;

    /**
     * @param changed told of each org whose settings changed, after the commit (the router forgets what it
     *                remembered of that org)
     */
    public OrgSettings(ScopedTransactions transactions, ModelCatalog models, Consumer<UUID> changed) {
        this.transactions = transactions;
        this.models = models;
        this.changed = changed;
    }

    public ModelCatalog models() {
        return models;
    }

    /** Why an org's conflicts could not be written with {@code model} by this replica; empty when they could. */
    public Optional<ModelCatalog.Unusable> unusable(String model) {
        return models.unusable(model);
    }

    public OrgSynthesis show(UUID org) {
        return transactions.inOrg(org, handle -> read(handle, org));
    }

    /**
     * Replaces the org's settings. In the same transaction, a budget that allows it again (or none) lets the
     * org's conflicts out of {@code waiting_budget}, so they resume at once; and the org's batches are asked to
     * cancel when it leaves the batch lane, or when its budget falls below what they reserved.
     *
     * @param by     who changes them, named in the {@code org_settings_changed} event written with the change
     * @param model  {@code provider/model}, or null for the primary model; a usable one
     * @param budget null for none; one that {@link MonthlyBudget#problem} accepts
     * @param weight the org's share of the claims, one that {@link ClaimWeight#problem} accepts; null to keep
     *               the one it has
     * @param lane   how the org's conflicts reach the provider; null to keep the one it has
     */
    public OrgSynthesis change(Caller by, UUID org, String model, BigDecimal budget, Integer weight, Lane lane) {
        OrgSynthesis now = transactions.inOrg(org, handle -> {
            Lane before = OrgSynthesisSettings.of(handle, org).lane();
            SynthesisSettings after = OrgSynthesisSettings.put(handle, org, model, budget, weight, lane);
            OrgSynthesisSettings.resumeWaiting(handle, Optional.of(org));
            // Its batches canceled at the provider when it leaves the batch lane, or when its budget no longer
            // covers what they reserved; what the provider still answers is stored and on record all the same.
            LlmBatches.cancelForSettings(handle, org,
                    before != Lane.INTERACTIVE && after.lane() == Lane.INTERACTIVE);
            OrgSynthesis read = read(handle, org);
            ObjectNode details = JSON.createObjectNode().put("model", model);
            details.put("monthly_budget_usd", budget);
            if (weight != null) {
                details.put("weight", weight);
            }
            if (lane != null) {
                details.put("lane", lane.wireName());
            }
            by.actor().addTo(details).put("role", by.role().wireName());
            // The last statement: it leaves the org's scope for the platform's.
            EventLog.appendPlatformChange(handle, org, EventLog.EventType.ORG_SETTINGS_CHANGED, details.toString());
            return read;
        });
        changed.accept(org);
        return now;
    }

    private OrgSynthesis read(Handle handle, UUID org) {
        SynthesisSettings settings = OrgSynthesisSettings.of(handle, org);
        return new OrgSynthesis(settings, models.primary(), UsageLedger.monthSpend(handle, org));
    }
}
