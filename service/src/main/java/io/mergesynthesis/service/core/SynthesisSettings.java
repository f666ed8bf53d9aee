package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * One org's synthesis settings.
 *
 * @param model            {@code provider/model}, or null for the configured primary model
 * @param monthlyBudgetUsd null for no budget
 * @param weight           the org's share of the claims while others wait too, against 1 for an org of the
 *                         default weight ({@link #DEFAULT_WEIGHT})
 * @param lane             how the org's conflicts reach the provider ({@link Lane#INTERACTIVE} by default)
 * @param updatedAt        null when none were ever set
 */
public record SynthesisSettings(UUID orgId, String model, BigDecimal monthlyBudgetUsd, int weight, Lane lane,
                                Instant updatedAt) {

    /** The weight of an org whose weight was never set. */
    public static final int DEFAULT_WEIGHT = 1;

    /** The defaults of an org that has never had settings. */
    public static SynthesisSettings none(UUID orgId) {
        return new SynthesisSettings(orgId, null, null, DEFAULT_WEIGHT, Lane.INTERACTIVE, null);
    }
}
