package io.mergesynthesis.service.settings;

import io.mergesynthesis.service.core.SynthesisSettings;
import java.math.BigDecimal;

/**
 * An org's synthesis settings with what they mean today.
 *
 * @param primaryModel the configured primary model, which the org's conflicts use when it has no model of its own
 * @param monthToDate  the org's spend this month, in US dollars
 */
public record OrgSynthesis(SynthesisSettings settings, String primaryModel, BigDecimal monthToDate) {
}
