package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Tokens managed by the platform from its pages: the same store and rules as the {@code token} command, with the
 * acting token named in each change's event.
 */
public final class TokenAdmin {

    private final TokenStore tokens;

    public TokenAdmin(TokenStore tokens) {
        this.tokens = tokens;
    }

    /** @throws IllegalArgumentException when the role, org and expiry do not go together (the store's words) */
    public TokenStore.MintedToken mint(Caller by, Role role, UUID org, Duration expiresIn) {
        return mint(by, role, org, expiresIn, null);
    }

    /** As {@link #mint(Caller, Role, UUID, Duration)}, named {@code label} (null for none). */
    public TokenStore.MintedToken mint(Caller by, Role role, UUID org, Duration expiresIn, String label) {
        return tokens.mint(role, org, expiresIn, label, by);
    }

    public List<TokenStore.ListedToken> list() {
        return tokens.list();
    }

    /** Revokes the token with id {@code id}; refuses an id no token has. */
    public TokenStore.Revocation revoke(Caller by, UUID id) {
        return tokens.revoke(id.toString(), by);
    }
}
