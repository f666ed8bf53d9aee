package io.mergesynthesis.service.auth;

import java.security.Principal;
import java.util.Optional;
import java.util.UUID;

/** The authenticated holder of a bearer token. */
public record Caller(UUID tokenId, Role role, UUID orgId) implements Principal {

    @Override
    public String getName() {
        return "token:" + tokenId;
    }

    /** The org this caller is bound to; empty for platform tokens. */
    public Optional<UUID> org() {
        return Optional.ofNullable(orgId);
    }
}
