package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.http.TrustedProxies;
import io.mergesynthesis.service.testing.TestApp;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Behind a proxy that terminates TLS, the browser's session cookie must still be Secure and the answers must carry
 * HSTS, but only when the proxy's word can be trusted: the same header from anyone else changes nothing. The tests
 * reach the running service from 127.0.0.1, which one app trusts and the other does not.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HttpsBehindProxyTest {

    static final TestApp TRUSTING_US = TestApp.apiOnly(
            ConfigOverride.config("web.trustedProxies", "10.0.0.0/8, 127.0.0.1"),
            ConfigOverride.config("web.hstsMaxAge", "180 days"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> TRUSTING_EXT = TRUSTING_US.extension();

    static final TestApp TRUSTING_OTHERS = TestApp.apiOnly(
            ConfigOverride.config("web.trustedProxies", "10.0.0.0/8,192.168.0.0/16"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> OTHERS_EXT = TRUSTING_OTHERS.extension();

    static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");

    @Test
    void aTrustedProxysHttpsMakesTheCookiesSecureAndSendsHsts() {
        HttpResponse<String> form = get(TRUSTING_US, "/sign-in", "https");
        assertThat(cookie(form, SessionCookies.SIGN_IN)).contains("; Secure");
        assertThat(form.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=15552000");

        HttpResponse<String> signedIn = signIn(TRUSTING_US, form, "https");
        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(cookie(signedIn, SessionCookies.SESSION))
                .contains("; Secure").contains("; HttpOnly").contains("; SameSite=Strict");
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
        assertThat(get(TRUSTING_US, "/sign-in", null).headers().firstValue("Strict-Transport-Security")).isEmpty();
    }

    @Test
    void aForgedHeaderFromAnUntrustedAddressCountsForNothing() {
        HttpResponse<String> form = get(TRUSTING_OTHERS, "/sign-in", "https");
        assertThat(cookie(form, SessionCookies.SIGN_IN)).doesNotContain("Secure");
        assertThat(form.headers().firstValue("Strict-Transport-Security")).isEmpty();

        HttpResponse<String> signedIn = signIn(TRUSTING_OTHERS, form, "https");
        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(cookie(signedIn, SessionCookies.SESSION)).doesNotContain("Secure");
        assertThat(signedIn.headers().firstValue("Strict-Transport-Security")).isEmpty();
    }

    @Test
    void noConfiguredProxyTrustsNoOne() {
        assertThat(TrustedProxies.of(List.of()).trusts("127.0.0.1")).isFalse();
        assertThat(TrustedProxies.of(List.of("")).trusts("127.0.0.1")).isFalse();
        assertThat(TrustedProxies.of(List.of("10.1.2.3, fd00::/8")).trusts("fd00::1")).isTrue();
        assertThat(TrustedProxies.of(List.of("10.1.2.3, fd00::/8")).trusts("10.1.2.4")).isFalse();
    }

    private static HttpResponse<String> get(TestApp app, String path, String forwardedProto) {
        HttpRequest.Builder request = HttpRequest.newBuilder(app.uri(path)).GET();
        if (forwardedProto != null) {
            request.header("X-Forwarded-Proto", forwardedProto);
        }
        return app.send(request.build());
    }

    private static HttpResponse<String> signIn(TestApp app, HttpResponse<String> form, String forwardedProto) {
        Matcher value = SIGN_IN_VALUE.matcher(form.body());
        assertThat(value.find()).isTrue();
        String token = app.token(Role.ORG_ADMIN, UUID.randomUUID());
        return app.send(HttpRequest.newBuilder(app.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SIGN_IN + "=" + value.group(1))
                .header("X-Forwarded-Proto", forwardedProto)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)
                        + "&sign_in=" + value.group(1)))
                .build());
    }

    private static String cookie(HttpResponse<String> response, String name) {
        return response.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "=")).findFirst().orElseThrow();
    }
}
