package io.mergesynthesis.service.settings;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one rule for an org's weight, its share of the claims while other orgs have conflicts waiting too: a whole
 * number from 1 to {@link #MAX} (the column's check). An org of weight 2 gets twice the calls of an org of weight
 * 1. The bound keeps one org from being given so large a share that every other org's wait grows with its
 * backlog again, which is what the weight exists to prevent.
 */
public final class ClaimWeight {

    /** The largest weight accepted. */
    public static final int MAX = 1000;

    private ClaimWeight() {
    }

    /** What is wrong with a weight as JSON gave it, in words that follow the field's name; null when acceptable. */
    public static String problem(JsonNode node) {
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 1 || node.intValue() > MAX) {
            return "must be a whole number from 1 to " + MAX + " (got " + node + ")";
        }
        return null;
    }
}
