package io.mergesynthesis.service.db;

import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Appends to {@code conflict_events}, the SIEM stream. Always called inside the transaction that makes the
 * change the event describes, so an event exists exactly when its change committed.
 */
public final class EventLog {

    /** The things that happen to a conflict. Stored by {@link #dbName()}. */
    public enum EventType {
        CONFLICT_DETECTED,
        MERGE_SYNTHESIZED,
        SYNTHESIS_FAILED_PERMANENTLY,
        CONFLICT_ACKNOWLEDGED,
        CONFLICT_RESOLVED,
        /** A marked conflict was given another chance: pending again, its attempts counted from zero. */
        SYNTHESIS_REQUEUED;

        public String dbName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private EventLog() {
    }

    /**
     * @param detailsJson a JSON object with what a security team needs to read the event on its own
     */
    public static void append(Handle handle, UUID orgId, UUID conflictId, EventType type, String detailsJson) {
        handle.createUpdate(APPEND)
                .bind("org", orgId)
                .bind("conflict", conflictId)
                .bind("type", type.dbName())
                .bind("details", detailsJson)
                .execute();
    }

    private static final String APPEND = SqlFiles.of(EventLog.class, "append");
}
