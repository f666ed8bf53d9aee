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
        SYNTHESIS_REQUEUED,
        /** The platform gave an org a display name, or a new one; the event names no conflict. */
        ORG_NAMED,
        /** A token was minted; of the token's org, or of no org for a platform token. */
        TOKEN_MINTED,
        /** A token was revoked; of the token's org, or of no org for a platform token. */
        TOKEN_REVOKED,
        /** An org's synthesis settings (model, monthly budget) were changed; the event names no conflict. */
        ORG_SETTINGS_CHANGED,
        BATCH_CANCEL_REQUESTED;

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

    /**
     * Appends an event of the platform's own (an org named, a token minted or revoked) that names no conflict, and
     * for a platform token no org either. It switches the transaction to the cross-tenant role first, since such
     * an event may belong to no org at all, so it is the last statement of its transaction.
     *
     * @param orgId the org the event concerns, or null
     */
    public static void appendPlatformChange(Handle handle, UUID orgId, EventType type, String detailsJson) {
        handle.createQuery(ScopedTransactions.ENTER_SWEEP)
                .bind("role", ScopedTransactions.SWEEP_ROLE)
                .mapTo(String.class)
                .one();
        append(handle, orgId, null, type, detailsJson);
    }

    private static final String APPEND = SqlFiles.of(EventLog.class, "append");
}
