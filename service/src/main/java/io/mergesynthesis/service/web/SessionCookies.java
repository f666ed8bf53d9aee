package io.mergesynthesis.service.web;

import java.time.Duration;

/**
 * The cookies of the web inbox, written by hand so that every attribute is visible here: HttpOnly (no page script
 * can read them), Path=/ and, over https, Secure (the request's {@code isSecure()}, which counts a trusted proxy's
 * word: see {@code http.HttpsRequests}).
 *
 * <p>The session cookie and the sign-in cookie of the identity provider are SameSite=Lax: the provider sends the
 * browser back to {@code /auth/callback} from its own site, and a Strict cookie would stay behind on that
 * navigation and on the redirect to the inbox that follows it. Lax still keeps them off every other site's form
 * posts and embedded requests, and every form carries a value of its session too (see {@link FormGuard}). The
 * token-paste form's cookie stays Strict: nothing from another site ever needs it.
 */
final class SessionCookies {

    /** The session id; its SHA-256 is the key of {@code web_sessions}. */
    static final String SESSION = "msw_session";
    /** A one-off value tying the sign-in form to the browser that loaded it (against forged sign-ins). */
    static final String SIGN_IN = "msw_sign_in";
    /** The state, nonce and PKCE verifier of a sign-in with the identity provider, while the person is there. */
    static final String PROVIDER_SIGN_IN = "msw_oidc";
    /** How long a person may take at the provider's sign-in page. */
    static final Duration PROVIDER_SIGN_IN_TIME = Duration.ofMinutes(10);

    private SessionCookies() {
    }

    static String session(String secret, Duration lifetime, boolean secure) {
        return cookie(SESSION, secret, "/", lifetime.toSeconds(), "Lax", secure);
    }

    static String signIn(String value, boolean secure) {
        return cookie(SIGN_IN, value, "/", 3600, "Strict", secure);
    }

    static String providerSignIn(String value, boolean secure) {
        return cookie(PROVIDER_SIGN_IN, value, "/auth/", PROVIDER_SIGN_IN_TIME.toSeconds(), "Lax", secure);
    }

    static String expired(String name, boolean secure) {
        return cookie(name, "", name.equals(PROVIDER_SIGN_IN) ? "/auth/" : "/", 0,
                name.equals(SIGN_IN) ? "Strict" : "Lax", secure);
    }

    private static String cookie(String name, String value, String path, long maxAgeSeconds, String sameSite,
                                 boolean secure) {
        return name + "=" + value + "; Path=" + path + "; Max-Age=" + maxAgeSeconds + "; HttpOnly; SameSite="
                + sameSite + (secure ? "; Secure" : "");
    }
}
