package io.mergesynthesis.service.web;

import jakarta.ws.rs.core.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Refuses form posts that another site made a browser send. SameSite=Strict cookies already keep the session
 * off such requests; on top of that every form carries a value only this session's pages know, and a request
 * the browser marks as cross-site (Sec-Fetch-Site, or an Origin of another host) is refused outright. The
 * Origin check alone would not do: under {@code Referrer-Policy: no-referrer} browsers send {@code Origin: null}
 * with every form post, same-site or not.
 */
final class FormGuard {

    private FormGuard() {
    }

    /** True unless the browser says the request came from another site. */
    static boolean sameSite(HttpHeaders headers) {
        String fetchSite = headers.getHeaderString("Sec-Fetch-Site");
        if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
            return false;
        }
        String origin = headers.getHeaderString("Origin");
        if (origin == null || origin.equals("null")) {
            return true;
        }
        String host = headers.getHeaderString(HttpHeaders.HOST);
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }

    /** The form's value matches the expected one (compared in constant time), and the request is same-site. */
    static boolean accepts(HttpHeaders headers, String expected, String sent) {
        return sameSite(headers) && expected != null && sent != null
                && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), sent.getBytes(StandardCharsets.UTF_8));
    }
}
