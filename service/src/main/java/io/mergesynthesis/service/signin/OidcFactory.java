package io.mergesynthesis.service.signin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.util.Optional;

/**
 * Sign-in with the company's OpenID Connect provider ({@code web.oidc}). With no {@code issuer} the console signs
 * people in by pasted token alone, as it always did. The shipped config.yml reads {@code OIDC_ISSUER},
 * {@code OIDC_CLIENT_ID}, {@code OIDC_CLIENT_SECRET}, {@code OIDC_ORG_CLAIM} and {@code OIDC_ROLE_CLAIM}.
 */
public class OidcFactory {

    private String issuer;
    private String clientId;
    private String clientSecret;
    @NotNull
    private String orgClaim = "org_id";
    @NotNull
    private String roleClaim = "roles";
    /**
     * The audience ({@code aud}) an access token of this issuer must be meant for to be taken from a machine (an
     * {@code ingest} or {@code siem} caller using the client credentials grant); empty: machines use our tokens.
     */
    private String machineAudience;

    /** How far the provider's clock and ours may differ when a token's times are checked. */
    @NotNull
    private Duration clockSkew = Duration.seconds(60);

    /** Whether sign-in with the provider is on: an issuer is set. */
    public boolean enabled() {
        return issuer != null && !issuer.isBlank();
    }

    /**
     * The provider, when an issuer is set; a half-made configuration (an issuer without a client id or secret, a
     * skew over five minutes) stops the start, naming what is missing.
     */
    public Optional<SignInWithProvider> build(URI publicBaseUrl) {
        if (!enabled()) {
            return Optional.empty();
        }
        if (clientId == null || clientId.isBlank()) {
            throw new IllegalArgumentException("OIDC_ISSUER is set but OIDC_CLIENT_ID (web.oidc.clientId) is not");
        }
        if (clientSecret == null || clientSecret.isBlank()) {
            throw new IllegalArgumentException("OIDC_ISSUER is set but OIDC_CLIENT_SECRET (web.oidc.clientSecret) "
                    + "is not");
        }
        if (clockSkew.toSeconds() < 0 || clockSkew.toSeconds() > 300) {
            throw new IllegalArgumentException("web.oidc.clockSkew must be from 0s to 5m, got " + clockSkew);
        }
        URI callback = URI.create(stripSlash(publicBaseUrl.toString()) + "/auth/callback");
        // The issuer exactly as configured: discovery compares it with the one the provider states, and some
        // (Auth0) end theirs with a slash.
        IdentityProvider provider = new IdentityProvider(issuer.strip(), clientId.strip(), clientSecret,
                callback, clockSkew.toJavaDuration());
        Optional<MachineTokens> machines = machineAudience == null || machineAudience.isBlank() ? Optional.empty()
                : Optional.of(new MachineTokens(provider, machineAudience.strip(), orgClaim.strip(),
                        roleClaim.strip()));
        return Optional.of(new SignInWithProvider(provider, new ClaimsMapping(orgClaim.strip(), roleClaim.strip()),
                machines));
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @JsonProperty
    public String getIssuer() {
        return issuer;
    }

    @JsonProperty
    public void setIssuer(String issuer) {
        this.issuer = issuer;
    }

    @JsonProperty
    public String getClientId() {
        return clientId;
    }

    @JsonProperty
    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    /** Never serialised back: the secret goes to the provider and nowhere else. */
    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public String getClientSecret() {
        return clientSecret;
    }

    @JsonProperty
    public void setClientSecret(String clientSecret) {
        this.clientSecret = clientSecret;
    }

    @JsonProperty
    public String getOrgClaim() {
        return orgClaim;
    }

    @JsonProperty
    public void setOrgClaim(String orgClaim) {
        this.orgClaim = orgClaim;
    }

    @JsonProperty
    public String getRoleClaim() {
        return roleClaim;
    }

    @JsonProperty
    public void setRoleClaim(String roleClaim) {
        this.roleClaim = roleClaim;
    }

    @JsonProperty
    public String getMachineAudience() {
        return machineAudience;
    }

    @JsonProperty
    public void setMachineAudience(String machineAudience) {
        this.machineAudience = machineAudience;
    }

    @JsonProperty
    public Duration getClockSkew() {
        return clockSkew;
    }

    @JsonProperty
    public void setClockSkew(Duration clockSkew) {
        this.clockSkew = clockSkew;
    }
}
