package io.mergesynthesis.service.core;

import java.util.Optional;

/**
 * How an org's conflicts reach the provider: one call each as they arrive, or in the provider's batches at its
 * batch price, for backlogs nobody is waiting for (docs/adr/0072-the-batch-lane.md).
 */
public enum Lane implements WireName {
    /** One call per conflict, as it is claimed. The default. */
    INTERACTIVE("interactive"),
    /** Every conflict of the org goes in batches. */
    BATCH("batch"),
    /** In batches while more than {@code llm.batch.autoAbove} conflicts of the org wait; interactive otherwise. */
    AUTO("auto");

    private final String wireName;

    Lane(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    public static Optional<Lane> fromWireName(String name) {
        return WireName.lookup(Lane.class, name);
    }

    /** The lane a stored word names; a word outside the column's check is a broken database, not bad input. */
    public static Lane ofStored(String name) {
        return WireName.stored(Lane.class, name, "lane");
    }

    /** Every wire name, in this order, comma separated: for messages that list what is allowed. */
    public static String wireNames() {
        return WireName.list(Lane.class);
    }
}
