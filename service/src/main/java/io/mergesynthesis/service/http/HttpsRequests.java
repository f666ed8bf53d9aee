package io.mergesynthesis.service.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Decides once per request whether the browser reached the service over https: the connection itself was TLS, or a
 * trusted proxy that terminated TLS says so in {@code X-Forwarded-Proto}. What follows reads the answer from
 * {@link HttpServletRequest#isSecure()} (the web inbox marks its cookies {@code Secure} by it), and every https
 * answer tells the browser to keep to https ({@code Strict-Transport-Security}). Over plain http that header would
 * be meaningless, and browsers ignore it there.
 */
public final class HttpsRequests implements Filter {

    static final String FORWARDED_PROTO = "X-Forwarded-Proto";

    private final TrustedProxies proxies;
    private final String strictTransportSecurity;

    public HttpsRequests(TrustedProxies proxies, long hstsMaxAgeSeconds) {
        this.proxies = proxies;
        this.strictTransportSecurity = "max-age=" + hstsMaxAgeSeconds;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        if (http.isSecure()) {
            out.setHeader("Strict-Transport-Security", strictTransportSecurity);
            chain.doFilter(request, response);
        } else if (forwardedOverHttps(http)) {
            out.setHeader("Strict-Transport-Security", strictTransportSecurity);
            chain.doFilter(new ArrivedOverHttps(http), response);
        } else {
            chain.doFilter(request, response);
        }
    }

    private boolean forwardedOverHttps(HttpServletRequest http) {
        String proto = http.getHeader(FORWARDED_PROTO);
        if (proto == null || !proxies.trusts(http.getRemoteAddr())) {
            return false;
        }
        // Proxies that append give one value per hop. Only the last was written by the trusted peer itself; the
        // earlier ones may come from the client.
        String[] hops = proto.split(",");
        return "https".equalsIgnoreCase(hops[hops.length - 1].strip());
    }

    /** The request as the browser sent it, to the proxy that forwarded it: over https. */
    private static final class ArrivedOverHttps extends HttpServletRequestWrapper {

        ArrivedOverHttps(HttpServletRequest request) {
            super(request);
        }

        @Override
        public boolean isSecure() {
            return true;
        }

        @Override
        public String getScheme() {
            return "https";
        }
    }
}
