package io.mergesynthesis.service.web;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The safety headers of every web page and static file (everything outside the JSON API under {@code /v1/}).
 * The policy allows nothing inline and nothing from elsewhere: a value that slipped past escaping still could
 * not run a script, load an image from another host, or post a form anywhere but here.
 *
 * <p>One exception, when people sign in with an identity provider: the sign-out form's answer sends the browser on
 * to the provider's own sign-out, and browsers hold a form's redirects to {@code form-action} too, so the
 * provider's origin joins it.
 */
public final class PageHeaders implements Filter {

    private final String contentSecurityPolicy;

    /** {@code providerOrigin}: the identity provider's scheme, host and port, or null when there is none. */
    PageHeaders(String providerOrigin) {
        this.contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
                + "img-src 'self'; connect-src 'self'; form-action 'self'"
                + (providerOrigin == null ? "" : " " + providerOrigin)
                + "; frame-ancestors 'none'; base-uri 'none'";
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse out
                && !http.getRequestURI().startsWith("/v1/")) {
            out.setHeader("Content-Security-Policy", contentSecurityPolicy);
            out.setHeader("X-Content-Type-Options", "nosniff");
            out.setHeader("Referrer-Policy", "no-referrer");
            out.setHeader("X-Frame-Options", "DENY");
            out.setHeader("Cross-Origin-Opener-Policy", "same-origin");
            if (!http.getRequestURI().startsWith(WebInbox.STATIC_PATH + "/")) {
                // Pages show one org's data to one person: no shared or back-button cache may keep them.
                out.setHeader("Cache-Control", "no-store");
            }
        }
        chain.doFilter(request, response);
    }
}
