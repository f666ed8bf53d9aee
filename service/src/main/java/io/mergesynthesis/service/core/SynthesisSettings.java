package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * One org's synthesis settings.
 *
 * @param model            {@code provider/model}, or null for the configured primary model
 * @param monthlyBudgetUsd null for no budget
 * @param updatedAt        null when none were ever set
 */
public record SynthesisSettings(UUID orgId, String model, BigDecimal monthlyBudgetUsd, Instant updatedAt) {

    /** The defaults of an org that has never had settings. */
    public static SynthesisSettings none(UUID orgId) {
        return new SynthesisSettings(orgId, null, null, null);
    }
}
