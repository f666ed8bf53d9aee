package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sign-in settings: with an identity provider and token sign-in turned off, the page offers the provider alone
 * and a pasted token is refused; a provider that cannot be reached costs a sign-in, not the start; settings that
 * would lock everyone out, or half an identity provider, stop the start naming what is missing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SignInSettingsTest {

    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.enabled", "false"),
            ConfigOverride.config("web.tokenSignIn", "false"),
            ConfigOverride.config("web.oidc.issuer", "http://127.0.0.1:9/realms/unreachable"),
            ConfigOverride.config("web.oidc.clientId", "console"),
            ConfigOverride.config("web.oidc.clientSecret", "not-used-here"),
            ConfigOverride.config("web.trustedProxies", "127.0.0.1"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void withTokenSignInOffThePageOffersTheProviderAloneAndAPastedTokenIsRefused() {
        HttpResponse<String> page = APP.send(HttpRequest.newBuilder(APP.uri("/sign-in")).GET().build());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("id=\"sign-in-with-provider\"").doesNotContain("id=\"token\"");

        HttpResponse<String> pasted = APP.send(HttpRequest.newBuilder(APP.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=msk_anything&sign_in=x")).build());
        assertThat(pasted.statusCode()).isEqualTo(403);
        assertThat(pasted.body()).contains("turned off");
        assertThat(pasted.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(SessionCookies.SESSION));
    }

    @Test
    void anUnreachableProviderCostsASignInNotTheStart() {
        HttpResponse<String> start = APP.send(HttpRequest.newBuilder(APP.uri("/auth/sign-in")).GET().build());
        assertThat(start.statusCode()).isEqualTo(502);
        assertThat(start.body()).contains("could not be reached");
        assertThat(start.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(SessionCookies.SESSION));
    }

    @Test
    void aCallbackWithNoSignInStartedHereIsRefused() {
        HttpResponse<String> callback = APP.send(HttpRequest.newBuilder(
                APP.uri("/auth/callback?code=abc&state=def")).GET().build());
        assertThat(callback.statusCode()).isEqualTo(400);
        assertThat(callback.body()).contains("did not start in this browser");
        assertThat(callback.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(SessionCookies.SESSION));
    }

    @Test
    void theSignInCookieIsLaxAndSecureBehindATrustedProxyThatTerminatedTls() {
        HttpResponse<String> callback = APP.send(HttpRequest.newBuilder(
                APP.uri("/auth/callback?code=abc&state=def")).header("X-Forwarded-Proto", "https").GET().build());
        assertThat(callback.headers().allValues("Set-Cookie"))
                .anySatisfy(c -> assertThat(c).startsWith(SessionCookies.PROVIDER_SIGN_IN + "=")
                        .contains("; Path=/auth/").contains("; HttpOnly").contains("; SameSite=Lax")
                        .contains("; Secure"));
        HttpResponse<String> plain = APP.send(HttpRequest.newBuilder(
                APP.uri("/auth/callback?code=abc&state=def")).GET().build());
        assertThat(plain.headers().allValues("Set-Cookie")).noneMatch(c -> c.contains("Secure"));
    }

    @Test
    void settingsThatLockEveryoneOutOrHalfAProviderStopTheStart() {
        WebFactory lockedOut = new WebFactory();
        lockedOut.setTokenSignIn(false);
        assertThatThrownBy(lockedOut::signInWithProvider).hasMessageContaining("nobody could sign in");

        WebFactory noClient = new WebFactory();
        noClient.getOidc().setIssuer("https://login.example.com/realms/acme");
        assertThatThrownBy(noClient::signInWithProvider).hasMessageContaining("OIDC_CLIENT_ID");
        noClient.getOidc().setClientId("console");
        assertThatThrownBy(noClient::signInWithProvider).hasMessageContaining("OIDC_CLIENT_SECRET");

        WebFactory badAddress = new WebFactory();
        badAddress.setPublicBaseUrl("merge.example.com");
        assertThatThrownBy(badAddress::publicBase).hasMessageContaining("PUBLIC_BASE_URL");

        assertThat(new WebFactory().signInWithProvider()).as("the default: tokens, no provider").isEmpty();
    }
}
