package io.mergesynthesis.service.admin;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Pattern;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The admin port's tools that change or expose the running server ({@code /tasks/*}, {@code /threads},
 * {@code /pprof}): off unless a token is configured, and then open only to requests that carry it.
 */
public class AdminToolsFactory {

    /**
     * The SHA-256 of the admin tools' token, as 64 hex digits; empty keeps the tools off. Only the hash is in the
     * configuration, so a configuration file or a dump of it does not hand out the token.
     */
    @Pattern(regexp = "^$|^[0-9a-fA-F]{64}$",
            message = "must be the SHA-256 of the admin tools' token as 64 hex digits (printf %s \"$TOKEN\" | "
                    + "sha256sum), or empty to keep /tasks, /threads and /pprof off")
    private String tokenSha256;

    /** The filter to put in front of the admin port's servlets. */
    public AdminToolsGuard build() {
        return new AdminToolsGuard(expectedHash());
    }

    Optional<byte[]> expectedHash() {
        return tokenSha256 == null || tokenSha256.isBlank() ? Optional.empty()
                : Optional.of(HexFormat.of().parseHex(tokenSha256.toLowerCase(java.util.Locale.ROOT)));
    }

    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public String getTokenSha256() {
        return tokenSha256;
    }

    public void setTokenSha256(String tokenSha256) {
        this.tokenSha256 = tokenSha256;
    }
}
