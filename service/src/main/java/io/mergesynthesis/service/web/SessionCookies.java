package io.mergesynthesis.service.web;

import io.mergesynthesis.service.session.WebSessions;

/**
 * The two cookies of the web inbox, written by hand so that every attribute is visible here: HttpOnly (no page
 * script can read them), SameSite=Strict (no other site's request carries them), Path=/ and, over https, Secure
 * (the request's {@code isSecure()}, which counts a trusted proxy's word: see {@code http.HttpsRequests}).
 */
final class SessionCookies {

    /** The session id; its SHA-256 is the key of {@code web_sessions}. */
    static final String SESSION = "msw_session";
    /** A one-off value tying the sign-in form to the browser that loaded it (against forged sign-ins). */
    static final String SIGN_IN = "msw_sign_in";

    private SessionCookies() {
    }

    static String session(String secret, boolean secure) {
        return cookie(SESSION, secret, WebSessions.LIFETIME.toSeconds(), secure);
    }

    static String signIn(String value, boolean secure) {
        return cookie(SIGN_IN, value, 3600, secure);
    }

    static String expired(String name, boolean secure) {
        return cookie(name, "", 0, secure);
    }

    private static String cookie(String name, String value, long maxAgeSeconds, boolean secure) {
        return name + "=" + value + "; Path=/; Max-Age=" + maxAgeSeconds + "; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }
}
