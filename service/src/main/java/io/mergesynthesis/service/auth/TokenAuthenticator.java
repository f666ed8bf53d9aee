package io.mergesynthesis.service.auth;

import io.dropwizard.auth.Authenticator;
import io.dropwizard.auth.Authorizer;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Optional;

/** Bearer token to caller, and caller to allowed roles, for Dropwizard's auth filter. */
public final class TokenAuthenticator implements Authenticator<String, Caller>, Authorizer<Caller> {

    private final TokenCache tokens;

    public TokenAuthenticator(TokenCache tokens) {
        this.tokens = tokens;
    }

    @Override
    public Optional<Caller> authenticate(String token) {
        return tokens.find(token);
    }

    @Override
    public boolean authorize(Caller caller, String role, ContainerRequestContext requestContext) {
        return caller.role().wireName().equals(role);
    }
}
