package io.mergesynthesis.service.auth;

import java.security.Principal;
import java.util.Optional;
import java.util.UUID;

/**
 * Who a request acts for: the holder of a bearer token, or a person signed in to the web console. {@code tokenId}
 * is null for a person; {@code actor} is what every change records.
 */
public record Caller(UUID tokenId, Role role, UUID orgId, Actor actor) implements Principal {

    /** A token's caller, named by its id alone. */
    public Caller(UUID tokenId, Role role, UUID orgId) {
        this(tokenId, role, orgId, Actor.token(tokenId, null));
    }

    @Override
    public String getName() {
        return actor.isPerson() ? "person:" + actor.subject() : "token:" + tokenId;
    }

    /** The org this caller is bound to; empty for the platform. */
    public Optional<UUID> org() {
        return Optional.ofNullable(orgId);
    }
}
