package io.mergesynthesis.service.web;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.http.TrustedProxies;
import io.mergesynthesis.service.signin.OidcFactory;
import io.mergesynthesis.service.signin.SignInWithProvider;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the web inbox learns that a browser reached it over https: directly, or through a proxy that terminated TLS
 * and is one of {@code trustedProxies}. Over https its cookies are {@code Secure} and every answer carries
 * {@code Strict-Transport-Security} with {@code hstsMaxAge}.
 */
public class WebFactory {

    /**
     * Addresses or CIDR ranges whose {@code X-Forwarded-Proto} is believed. A list, or one string of comma-separated
     * entries (what an environment variable gives); empty trusts no one, so a forged header changes nothing.
     */
    @NotNull
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
    private List<String> trustedProxies = new ArrayList<>();

    @NotNull
    private Duration hstsMaxAge = Duration.days(365);

    /** The address people reach the console at; the provider sends them back to its {@code /auth/callback}. */
    @NotNull
    private String publicBaseUrl = "http://127.0.0.1:8080";

    /** Whether a token may be pasted to sign in; false leaves the identity provider as the only way in. */
    private boolean tokenSignIn = true;

    /** A session unused this long ends. */
    @NotNull
    private Duration sessionIdle = Duration.minutes(30);

    /** A session ends this long after sign-in, however busy. */
    @NotNull
    private Duration sessionMax = Duration.hours(12);

    @Valid
    @NotNull
    private OidcFactory oidc = new OidcFactory();

    @JsonProperty
    public List<String> getTrustedProxies() {
        return trustedProxies;
    }

    @JsonProperty
    public void setTrustedProxies(List<String> trustedProxies) {
        this.trustedProxies = trustedProxies;
    }

    @JsonProperty
    public Duration getHstsMaxAge() {
        return hstsMaxAge;
    }

    @JsonProperty
    public void setHstsMaxAge(Duration hstsMaxAge) {
        this.hstsMaxAge = hstsMaxAge;
    }

    @JsonProperty
    public String getPublicBaseUrl() {
        return publicBaseUrl;
    }

    @JsonProperty
    public void setPublicBaseUrl(String publicBaseUrl) {
        this.publicBaseUrl = publicBaseUrl;
    }

    /** The public address as a URL; one that is not an absolute http(s) URL stops the start, naming it. */
    public URI publicBase() {
        try {
            URI uri = new URI(publicBaseUrl.strip());
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new URISyntaxException(publicBaseUrl, "not an absolute http or https URL");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("PUBLIC_BASE_URL (web.publicBaseUrl) must be an http or https URL "
                    + "such as https://merge.example.com, got " + publicBaseUrl);
        }
    }

    @JsonProperty
    public boolean isTokenSignIn() {
        return tokenSignIn;
    }

    @JsonProperty
    public void setTokenSignIn(boolean tokenSignIn) {
        this.tokenSignIn = tokenSignIn;
    }

    @JsonProperty
    public Duration getSessionIdle() {
        return sessionIdle;
    }

    @JsonProperty
    public void setSessionIdle(Duration sessionIdle) {
        this.sessionIdle = sessionIdle;
    }

    @JsonProperty
    public Duration getSessionMax() {
        return sessionMax;
    }

    @JsonProperty
    public void setSessionMax(Duration sessionMax) {
        this.sessionMax = sessionMax;
    }

    @JsonProperty
    public OidcFactory getOidc() {
        return oidc;
    }

    @JsonProperty
    public void setOidc(OidcFactory oidc) {
        this.oidc = oidc;
    }

    /**
     * The identity provider, if one is configured. Turning token sign-in off with no provider would leave nobody a
     * way into the console: that stops the start, saying so.
     */
    public Optional<SignInWithProvider> signInWithProvider() {
        Optional<SignInWithProvider> provider = oidc.build(publicBase());
        if (provider.isEmpty() && !tokenSignIn) {
            throw new IllegalArgumentException("web.tokenSignIn is false and no OIDC_ISSUER is set: nobody could "
                    + "sign in to the console; set OIDC_ISSUER or leave token sign-in on");
        }
        return provider;
    }

    /** The configured proxies; an entry that is not an address or a range stops the start, naming it. */
    public TrustedProxies proxies() {
        return TrustedProxies.of(trustedProxies);
    }
}
