package io.mergesynthesis.service.web;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.http.TrustedProxies;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

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

    /** The configured proxies; an entry that is not an address or a range stops the start, naming it. */
    public TrustedProxies proxies() {
        return TrustedProxies.of(trustedProxies);
    }
}
