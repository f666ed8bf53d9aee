package io.mergesynthesis.service.auth;

import io.mergesynthesis.service.core.WireName;
import java.util.Locale;
import java.util.Optional;

/** What a token may do. Every role but {@link #PLATFORM} is bound to one org. */
public enum Role implements WireName {
    /** A customer org's admin inbox: reads, acknowledges and resolves its org's conflicts. */
    ORG_ADMIN,
    /** A colleague of an org's admins who reads everything they read of the org and changes nothing. */
    ORG_VIEWER,
    /** The policy engine reporting conflicts for one org. */
    INGEST,
    /** A security team's log pipeline pulling its org's event stream. */
    SIEM,
    /** The platform operator: ingest for any org and the event stream of every org. */
    PLATFORM;

    /** Names used in {@code @RolesAllowed}; they must match {@link #wireName()}. */
    public static final String ORG_ADMIN_NAME = "org_admin";
    public static final String ORG_VIEWER_NAME = "org_viewer";
    public static final String INGEST_NAME = "ingest";
    public static final String SIEM_NAME = "siem";
    public static final String PLATFORM_NAME = "platform";

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean boundToOrg() {
        return this != PLATFORM;
    }

    /** The roles that read an org's inbox: its admins and its viewers. */
    public boolean readsInbox() {
        return this == ORG_ADMIN || this == ORG_VIEWER;
    }

    public static Optional<Role> fromWireName(String name) {
        return WireName.lookup(Role.class, name);
    }
}
