package io.mergesynthesis.service.core;

import java.time.Instant;
import java.util.UUID;

/**
 * A conflict the worker pool gave up on, as the operator's list across orgs shows it.
 *
 * @param markedAt when it was marked (its last change)
 */
public record MarkedConflict(UUID id, UUID org, String target, String reason, int attempts, Instant markedAt) {

    /** Where a page of the list ends: the next page starts after it. */
    public record Key(Instant markedAt, UUID id) {
    }

    public Key key() {
        return new Key(markedAt, id);
    }
}
