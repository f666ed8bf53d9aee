package io.mergesynthesis.service.web;

import static io.mergesynthesis.service.web.ForwardedRequests.cookie;
import static io.mergesynthesis.service.web.ForwardedRequests.get;
import static io.mergesynthesis.service.web.ForwardedRequests.signIn;
import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.http.TrustedProxies;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Behind a proxy that terminates TLS, the browser's session cookie must still be Secure and the answers must carry
 * HSTS, but only when the proxy's word can be trusted: the same header from anyone else changes nothing. The tests
 * reach the running service from 127.0.0.1, which this app trusts; {@link HttpsFromAnUntrustedPeerTest} runs one that
 * does not. They are two classes because two apps started side by side restore each other's configuration overrides
 * out of order and leave them set for the tests after them.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HttpsBehindProxyTest {

    static final TestApp TRUSTING_US = TestApp.apiOnly(
            ConfigOverride.config("web.trustedProxies", "10.0.0.0/8, 127.0.0.1"),
            ConfigOverride.config("web.hstsMaxAge", "180 days"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> TRUSTING_EXT = TRUSTING_US.extension();

    @Test
    void aTrustedProxysHttpsMakesTheCookiesSecureAndSendsHsts() {
        HttpResponse<String> form = get(TRUSTING_US, "/sign-in", "https");
        assertThat(cookie(form, SessionCookies.SIGN_IN)).contains("; Secure");
        assertThat(form.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=15552000");

        HttpResponse<String> signedIn = signIn(TRUSTING_US, form, "https");
        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(cookie(signedIn, SessionCookies.SESSION))
                .contains("; Secure").contains("; HttpOnly").contains("; SameSite=Lax");
        assertThat(signedIn.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=15552000");
        // The JSON API is reached the same way, so it says the same.
        HttpResponse<String> api = TRUSTING_US.send(HttpRequest.newBuilder(TRUSTING_US.uri("/v1/openapi.yaml"))
                .header("X-Forwarded-Proto", "https").GET().build());
        assertThat(api.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=15552000");
    }

    @Test
    void aTrustedProxysPlainHttpIsPlainHttp() {
        HttpResponse<String> form = get(TRUSTING_US, "/sign-in", "http");
        assertThat(cookie(form, SessionCookies.SIGN_IN)).doesNotContain("Secure");
        assertThat(form.headers().firstValue("Strict-Transport-Security")).isEmpty();
        // Only the value the trusted peer wrote counts, not one the client put before it.
        HttpResponse<String> appended = get(TRUSTING_US, "/sign-in", "https, http");
        assertThat(cookie(appended, SessionCookies.SIGN_IN)).doesNotContain("Secure");
        assertThat(get(TRUSTING_US, "/sign-in", null).headers().firstValue("Strict-Transport-Security"))
                .isEmpty();
    }

    @Test
    void noConfiguredProxyTrustsNoOne() {
        assertThat(TrustedProxies.of(List.of()).trusts("127.0.0.1")).isFalse();
        assertThat(TrustedProxies.of(List.of("")).trusts("127.0.0.1")).isFalse();
        assertThat(TrustedProxies.of(List.of("10.1.2.3, fd00::/8")).trusts("fd00::1")).isTrue();
        assertThat(TrustedProxies.of(List.of("10.1.2.3, fd00::/8")).trusts("10.1.2.4")).isFalse();
    }
}
