package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.MarkedConflict;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** The operator's list of marked conflicts across orgs, keyset paged; runs on a cross-tenant handle. */
public final class FailedConflicts {

    private static final String PAGE = SqlFiles.of(FailedConflicts.class, "page");

    private FailedConflicts() {
    }

    /**
     * Up to {@code limit} marked conflicts, newest mark first, after {@code after} (null for the first page).
     *
     * @param reason only those whose last failure reason this is; null for any
     * @param org    only this org's; null for any
     */
    public static List<MarkedConflict> page(Handle handle, String reason, UUID org, MarkedConflict.Key after,
                                            int limit) {
        return handle.createQuery(PAGE)
                .bind("reason", reason)
                .bind("org", org)
                .bind("afterUpdatedAt", after == null ? null : Timestamp.from(after.markedAt()))
                .bind("afterConflict", after == null ? null : after.id())
                .bind("limit", limit)
                .map((rs, ctx) -> new MarkedConflict(rs.getObject("id", UUID.class), rs.getObject("org_id", UUID.class),
                        rs.getString("target"), rs.getString("reason"), rs.getInt("attempts"),
                        rs.getObject("updated_at", OffsetDateTime.class).toInstant()))
                .list();
    }
}
