package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.models.OrgModelCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * "org-models": unhealthy while some org's stored model is one this replica cannot serve (its provider's key is
 * not set here, or the model left the configuration). Those orgs' conflicts wait uncounted, so nothing else
 * would show that they are stuck: this names how many orgs, which models, and the variables to set.
 */
public final class OrgModelsHealthCheck extends HealthCheck {

    public static final String NAME = "org-models";

    private final ScopedTransactions transactions;
    private final OrgModelCheck orgModels;

    public OrgModelsHealthCheck(ScopedTransactions transactions, OrgModelCheck orgModels) {
        this.transactions = transactions;
        this.orgModels = orgModels;
    }

    @Override
    protected Result check() {
        Map<String, Long> byModel = transactions.crossTenant(OrgSynthesisSettings::orgsByModel);
        long orgs = 0;
        List<String> models = new ArrayList<>();
        TreeSet<String> variables = new TreeSet<>();
        for (Map.Entry<String, Long> entry : byModel.entrySet()) {
            Optional<ModelCatalog.Unusable> unservable = orgModels.unservable(entry.getKey());
            if (unservable.isEmpty()) {
                continue;
            }
            orgs += entry.getValue();
            models.add(unservable.get().describe() + " (" + orgs(entry.getValue()) + ")");
            if (unservable.get().keyVariable() != null) {
                variables.add(unservable.get().keyVariable());
            }
        }
        if (orgs == 0) {
            return Result.healthy("every org's own model can be served by this replica");
        }
        String todo = variables.isEmpty() ? "choose a usable model for them (GET /v1/models)"
                : "set " + String.join(" and ", variables) + " and restart, or choose a usable model for them";
        return Result.unhealthy(orgs(orgs) + " have a model this replica cannot serve, and their conflicts wait "
                + "with no attempt counted: " + todo + "; " + String.join("; ", models));
    }

    private static String orgs(long count) {
        return count == 1 ? "1 org" : count + " orgs";
    }
}
