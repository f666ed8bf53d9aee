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

    /**
     * The head of an insert that appends one event per row of a source named right after it (a CTE of the
     * statement that makes the change), each row giving {@code id} as the conflict; binds {@code :org},
     * {@code :type} and {@code :details} as {@link #append} does. For a change and its event in one statement:
     * the event is written exactly for the rows the change touched.
     */
    public static final String INSERT_FROM_ROWS = """
            INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
            SELECT :org, id, :type, CAST(:details AS jsonb) FROM""";

    private EventLog() {
    }

    /**
     * @param detailsJson a JSON object with what a security team needs to read the event on its own
     */
    public static void append(Handle handle, UUID orgId, UUID conflictId, EventType type, String detailsJson) {
        handle.createUpdate("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                        VALUES (:org, :conflict, :type, CAST(:details AS jsonb))""")
                .bind("org", orgId)
                .bind("conflict", conflictId)
                .bind("type", type.dbName())
                .bind("details", detailsJson)
                .execute();
    }
}
