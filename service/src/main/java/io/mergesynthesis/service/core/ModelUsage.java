package io.mergesynthesis.service.core;

import java.math.BigDecimal;

/**
 * Month-to-date figures of one model ({@code provider/model}) in one lane ({@code interactive} or {@code batch}),
 * of one org or of all; or, {@link #named} so and summed, of a model in every lane or of a lane with every model.
 */
public record ModelUsage(String model, String lane, long calls, long inputTokens, long outputTokens,
                         long cacheReadTokens, long cacheWriteTokens, BigDecimal costUsd) {

    /** The same figures under another name: a model with no lane, or a lane with no model. */
    public ModelUsage named(String model, String lane) {
        return new ModelUsage(model, lane, calls, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
                costUsd);
    }

    /** These figures and {@code other}'s together, under this one's name. */
    public ModelUsage plus(ModelUsage other) {
        return new ModelUsage(model, lane, calls + other.calls, inputTokens + other.inputTokens,
                outputTokens + other.outputTokens, cacheReadTokens + other.cacheReadTokens,
                cacheWriteTokens + other.cacheWriteTokens, costUsd.add(other.costUsd));
    }
}
