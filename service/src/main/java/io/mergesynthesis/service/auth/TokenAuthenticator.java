package io.mergesynthesis.service.auth;

import io.dropwizard.auth.Authenticator;
import io.dropwizard.auth.Authorizer;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Optional;
import java.util.function.Function;

/**
 * Bearer token to caller, and caller to allowed roles, for Dropwizard's auth filter. Our own tokens ({@code msk_})
 * are looked up; anything else goes to {@code others} (the identity provider's access tokens for machines, when
 * configured), which answers empty for what it does not take.
 */
public final class TokenAuthenticator implements Authenticator<String, Caller>, Authorizer<Caller> {

    private final TokenCache tokens;
    private final Function<String, Optional<Caller>> others;

    public TokenAuthenticator(TokenCache tokens) {
        this(tokens, token -> Optional.empty());
    }

    public TokenAuthenticator(TokenCache tokens, Function<String, Optional<Caller>> others) {
        this.tokens = tokens;
        this.others = others;
    }

    @Override
    public Optional<Caller> authenticate(String token) {
        return TokenStore.wellFormed(token) ? tokens.find(token) : others.apply(token);
    }

    @Override
    public boolean authorize(Caller caller, String role, ContainerRequestContext requestContext) {
        return caller.role().wireName().equals(role);
    }
}
