package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.mergesynthesis.service.core.SynthesisSettings;
import io.mergesynthesis.service.settings.OrgSynthesis;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * An org's synthesis settings as {@code GET/PUT /v1/orgs/{org_id}/synthesis} show them, with the month-to-date
 * spend beside the budget so that a reader sees at once how much of it is left.
 *
 * @param weight          the org's share of the claims while other orgs have conflicts waiting too (1 by default)
 * @param lane            how the org's conflicts reach the provider: interactive (the default), batch or auto
 *
 * @param effectiveModel the model the org's conflicts are written with: its override, else the primary
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"org_id", "model", "monthly_budget_usd", "weight", "lane", "effective_model", "month_to_date_cost_usd",
        "budget_reached", "updated_at"})
public record OrgSynthesisView(
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("model") String model,
        @JsonProperty("monthly_budget_usd") BigDecimal monthlyBudgetUsd,
        @JsonProperty("weight") int weight,
        @JsonProperty("lane") String lane,
        @JsonProperty("effective_model") String effectiveModel,
        @JsonProperty("month_to_date_cost_usd") BigDecimal monthToDateCostUsd,
        @JsonProperty("budget_reached") boolean budgetReached,
        @JsonProperty("updated_at") Instant updatedAt) {

    public static OrgSynthesisView of(OrgSynthesis org) {
        SynthesisSettings settings = org.settings();
        BigDecimal budget = settings.monthlyBudgetUsd();
        BigDecimal monthToDate = org.monthToDate();
        return new OrgSynthesisView(settings.orgId(), settings.model(), budget, settings.weight(), settings.lane().wireName(),
                settings.model() != null ? settings.model() : org.primaryModel(), monthToDate,
                budget != null && monthToDate.compareTo(budget) >= 0, settings.updatedAt());
    }
}
