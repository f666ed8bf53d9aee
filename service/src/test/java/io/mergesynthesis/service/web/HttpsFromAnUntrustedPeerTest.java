package io.mergesynthesis.service.web;

import static io.mergesynthesis.service.web.ForwardedRequests.cookie;
import static io.mergesynthesis.service.web.ForwardedRequests.get;
import static io.mergesynthesis.service.web.ForwardedRequests.signIn;
import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A forwarded protocol from a peer the service was not told to trust changes nothing (see HttpsBehindProxyTest). */
@ExtendWith(DropwizardExtensionsSupport.class)
class HttpsFromAnUntrustedPeerTest {

    static final TestApp TRUSTING_OTHERS = TestApp.apiOnly(
            ConfigOverride.config("web.trustedProxies", "10.0.0.0/8,192.168.0.0/16"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> OTHERS_EXT = TRUSTING_OTHERS.extension();

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
}
