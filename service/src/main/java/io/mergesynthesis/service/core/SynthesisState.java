package io.mergesynthesis.service.core;

import java.util.Optional;

/**
 * Where the worker pool is with a conflict: the words of the {@code synthesis_state} domain (the database holds
 * the same list; a test compares the two), each with the words a person reads for it on the web pages.
 */
public enum SynthesisState implements WireName {
    /** Waiting to be claimed, now or after a backoff. */
    PENDING("pending", "pending"),
    /** A worker holds a lease on it. */
    IN_PROGRESS("in_progress", "in progress"),
    /** A suggested merge is stored. */
    DONE("done", "merge ready"),
    /** Every attempt failed: the conflict carries the permanent failure marker until someone re-queues it. */
    MAX_ATTEMPTS_EXCEEDED("max_attempts_exceeded", "failed"),
    /** The org's monthly budget is spent; it resumes when the budget allows. */
    WAITING_BUDGET("waiting_budget", "waiting for budget"),
    /** Resolved before its synthesis began, so none was paid for. */
    NOT_NEEDED("not_needed", "not needed"),
    /** Sent in a provider's batch: no claim takes it and no lease ends under it; its batch's results settle it. */
    BATCHED("batched", "in a batch");

    private final String wireName;
    private final String label;

    SynthesisState(String wireName, String label) {
        this.wireName = wireName;
        this.label = label;
    }

    @Override
    public String wireName() {
        return wireName;
    }

    /** The word a person reads on a page. */
    public String label() {
        return label;
    }

    public static Optional<SynthesisState> fromWireName(String name) {
        return WireName.lookup(SynthesisState.class, name);
    }

    /** The state a stored word names; a word outside the domain is a broken database, not bad input. */
    public static SynthesisState ofStored(String name) {
        return WireName.stored(SynthesisState.class, name, "synthesis state");
    }

    /** Every wire name, in this order, comma separated: for messages that list what is allowed. */
    public static String wireNames() {
        return WireName.list(SynthesisState.class);
    }
}
