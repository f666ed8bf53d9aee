package io.mergesynthesis.service.usage;

import io.mergesynthesis.service.core.ModelUsage;
import io.mergesynthesis.service.core.SynthesisSettings;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * Provider calls this month by model, of one org or of every org.
 *
 * @param monthStart when this month began, by the database clock (UTC)
 * @param settings   the org's model and budget; null for every org together
 */
public record MonthToDate(Instant monthStart, List<ModelUsage> byModel, SynthesisSettings settings) {

    public BigDecimal totalCost() {
        return byModel.stream().map(ModelUsage::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
