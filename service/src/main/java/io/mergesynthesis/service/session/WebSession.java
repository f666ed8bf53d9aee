package io.mergesynthesis.service.session;

import io.mergesynthesis.service.auth.Actor;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import java.time.Instant;
import java.util.UUID;

/**
 * A signed-in browser: a person who signed in with the identity provider, or someone who pasted a token. A token's
 * role and org are read afresh on every request (a revoked token ends its sessions at once); a person's are those
 * the provider stated at sign-in, until the session ends. {@code viewingOrg} is the org a platform operator chose
 * to look at. {@code formKey} is the value every form of this session must send back (the web inbox checks it on
 * every form it accepts). {@code actor} is who the session's changes are recorded as.
 */
public record WebSession(byte[] idHash, UUID tokenId, Role role, UUID tokenOrg, UUID viewingOrg, Instant expiresAt,
                         String formKey, Actor actor) {

    public boolean platform() {
        return role == Role.PLATFORM;
    }

    /**
     * The org whose inbox this session shows: an org admin's or viewer's own org, never one taken from a URL; for
     * the platform, the org it chose (null until it chooses one).
     */
    public UUID org() {
        return platform() ? viewingOrg : tokenOrg;
    }

    /** Only an org's own admin may change its conflicts, as in the API; viewers and the platform read only. */
    public boolean mayChangeConflicts() {
        return role == Role.ORG_ADMIN;
    }

    /**
     * Who may give a marked conflict another chance, as in the API: the org's own admin, and the platform operator
     * on the org it is viewing.
     */
    public boolean mayRequeue() {
        return role == Role.ORG_ADMIN || role == Role.PLATFORM;
    }

    /** The same caller the API would see, for the inbox's writes and their events. */
    public Caller caller() {
        return new Caller(tokenId, role, tokenOrg, actor);
    }
}
