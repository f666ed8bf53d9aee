package io.mergesynthesis.service.usage;

import io.mergesynthesis.service.core.ModelUsage;
import io.mergesynthesis.service.core.SynthesisSettings;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Provider calls this month by model and lane, of one org or of every org.
 *
 * @param monthStart when this month began, by the database clock (UTC)
 * @param lines      one per model and lane, in model order
 * @param settings   the org's model and budget; null for every org together
 */
public record MonthToDate(Instant monthStart, List<ModelUsage> lines, SynthesisSettings settings) {

    /** One line per model, its lanes summed, in model order. */
    public List<ModelUsage> byModel() {
        return summed(line -> line.named(line.model(), null));
    }

    /** One line per lane, its models summed: what the batch lane cost beside the interactive one. */
    public List<ModelUsage> byLane() {
        return summed(line -> line.named(null, line.lane()));
    }

    public BigDecimal totalCost() {
        return lines.stream().map(ModelUsage::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    private List<ModelUsage> summed(UnaryOperator<ModelUsage> named) {
        Map<String, ModelUsage> sums = new LinkedHashMap<>();
        for (ModelUsage line : lines) {
            ModelUsage one = named.apply(line);
            sums.merge(one.model() + " " + one.lane(), one, ModelUsage::plus);
        }
        return List.copyOf(sums.values());
    }
}
