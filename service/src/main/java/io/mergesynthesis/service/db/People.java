package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.SignedInPerson;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The SQL that reads {@code people}. Sign-ins write it through {@code record_person_sign_in()}
 * ({@link WebSessionStore}); only the login role reads it, for the operator.
 */
public final class People {

    private static final String RECENT = SqlFiles.of(People.class, "recent");

    private People() {
    }

    public static List<SignedInPerson> recent(Handle handle, int limit) {
        return handle.createQuery(RECENT)
                .bind("limit", limit)
                .map((rs, ctx) -> new SignedInPerson(rs.getString("subject"), rs.getObject("org_id", UUID.class),
                        rs.getString("email"), rs.getString("name"), rs.getString("role"),
                        rs.getObject("first_seen_at", OffsetDateTime.class).toInstant(),
                        rs.getObject("last_seen_at", OffsetDateTime.class).toInstant()))
                .list();
    }
}
