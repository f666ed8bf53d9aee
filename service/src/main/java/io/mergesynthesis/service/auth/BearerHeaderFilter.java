package io.mergesynthesis.service.auth;

import io.dropwizard.auth.AuthFilter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;

/**
 * Authenticates {@code Authorization: Bearer <token>} and nothing else.
 *
 * <p>Dropwizard's OAuth filter, which this replaces, also takes the token from an {@code access_token} query
 * parameter. A token in a URL is written in clear to the request log (and to proxies' logs and browser
 * histories), while the service keeps only hashes of tokens; a client that puts it there now gets 401 at once.
 * Two Authorization headers are refused too: the server should not pick one of two credentials for the client.
 */
@Priority(Priorities.AUTHENTICATION)
public final class BearerHeaderFilter extends AuthFilter<String, Caller> {

    @Override
    public void filter(ContainerRequestContext request) {
        // getHeaderString joins repeated headers with commas, which no token contains.
        if (!authenticate(request, token(request.getHeaderString(HttpHeaders.AUTHORIZATION)), prefix)) {
            throw unauthorizedHandler.buildException(prefix, realm);
        }
    }

    /** The credentials after the scheme (matched ignoring case, as HTTP schemes are), or null. */
    private String token(String header) {
        if (header == null) {
            return null;
        }
        int space = header.indexOf(' ');
        if (space <= 0 || !header.substring(0, space).equalsIgnoreCase(prefix)) {
            return null;
        }
        return header.substring(space + 1);
    }

    public static final class Builder extends AuthFilterBuilder<String, Caller, BearerHeaderFilter> {
        @Override
        protected BearerHeaderFilter newInstance() {
            return new BearerHeaderFilter();
        }
    }
}
