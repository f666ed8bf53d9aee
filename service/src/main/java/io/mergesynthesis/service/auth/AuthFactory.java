package io.mergesynthesis.service.auth;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Clock;

/** How the API checks bearer tokens. */
public class AuthFactory {

    /**
     * How long a replica remembers a token it has looked up. A revoked token is refused by every replica within
     * this long; 0s turns the cache off (one read of the token table per request).
     */
    @NotNull
    private Duration tokenCacheTtl = Duration.seconds(5);

    /** Tokens each replica remembers at most (least recently used go first). */
    @Min(1)
    private long tokenCacheSize = 10_000;

    public TokenCache build(TokenStore store, Clock clock) {
        if (tokenCacheTtl.toNanoseconds() < 0) {
            throw new IllegalArgumentException("auth.tokenCacheTtl cannot be negative, got " + tokenCacheTtl);
        }
        return new TokenCache(store, tokenCacheTtl.toJavaDuration(), tokenCacheSize, clock);
    }

    @JsonProperty
    public Duration getTokenCacheTtl() {
        return tokenCacheTtl;
    }

    @JsonProperty
    public void setTokenCacheTtl(Duration tokenCacheTtl) {
        this.tokenCacheTtl = tokenCacheTtl;
    }

    @JsonProperty
    public long getTokenCacheSize() {
        return tokenCacheSize;
    }

    @JsonProperty
    public void setTokenCacheSize(long tokenCacheSize) {
        this.tokenCacheSize = tokenCacheSize;
    }
}
