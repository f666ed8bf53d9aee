package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.OrgName;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** The SQL of {@code org_names}: naming an org (across orgs, the platform's work) and reading names back. */
public final class OrgNames {

    private static final String UPSERT = SqlFiles.of(OrgNames.class, "upsert");
    private static final String OF_ORG = SqlFiles.of(OrgNames.class, "of_org");
    private static final String OF_ORGS = SqlFiles.of(OrgNames.class, "of_orgs");
    private static final String TAKEN_BY = SqlFiles.of(OrgNames.class, "taken_by");

    private OrgNames() {
    }

    /** Stores {@code name} for {@code org}; returns the name it had before, if any. */
    public static Optional<String> name(Handle handle, UUID org, OrgName name, Instant now) {
        return handle.createQuery(UPSERT)
                .bind("org", org)
                .bind("name", name.text())
                .bind("now", Timestamp.from(now))
                .map((rs, ctx) -> Optional.ofNullable(rs.getString("previous")))
                .one();
    }

    /** The org that bears {@code name} already, ignoring case. */
    public static Optional<UUID> takenBy(Handle handle, OrgName name) {
        return handle.createQuery(TAKEN_BY).bind("name", name.text()).mapTo(UUID.class).findOne();
    }

    public static Optional<String> of(Handle handle, UUID org) {
        return handle.createQuery(OF_ORG).bind("org", org).mapTo(String.class).findOne();
    }

    /** The names of those of {@code orgs} that have one. */
    public static Map<UUID, String> of(Handle handle, Collection<UUID> orgs) {
        Map<UUID, String> names = new HashMap<>();
        if (orgs.isEmpty()) {
            return names;
        }
        handle.createQuery(OF_ORGS)
                .bindArray("orgs", UUID.class, orgs)
                .map((rs, ctx) -> names.put(rs.getObject("org_id", UUID.class), rs.getString("name")))
                .list();
        return names;
    }
}
