package io.mergesynthesis.service.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.mergesynthesis.service.auth.TokenStore.ActiveToken;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Remembers the tokens that were presented lately, for {@code auth.tokenCacheTtl}, so that a busy caller does
 * not cost a read of {@code api_tokens} per request. The TTL is also how long a revocation may take to bite on a
 * replica that remembers the token; an expiry bites on time, since the remembered entry carries it. Unknown,
 * revoked and expired tokens are never remembered: a token minted a moment ago works at once, and a flood of
 * made-up tokens cannot push real ones out. Keys are hashes, never secrets. A zero TTL turns the cache off.
 */
public final class TokenCache {

    private final Function<byte[], Optional<ActiveToken>> lookUp;
    private final Clock clock;
    private final Cache<ByteBuffer, ActiveToken> remembered;

    public TokenCache(TokenStore store, Duration ttl, long maxSize, Clock clock) {
        this(store::lookUp, ttl, maxSize, clock);
    }

    TokenCache(Function<byte[], Optional<ActiveToken>> lookUp, Duration ttl, long maxSize, Clock clock) {
        this.lookUp = lookUp;
        this.clock = clock;
        this.remembered = ttl.isZero() ? null : Caffeine.newBuilder()
                .expireAfterWrite(ttl)
                .maximumSize(maxSize)
                .ticker(() -> clock.millis() * 1_000_000L)
                .build();
    }

    /** The caller a presented token stands for, if it is known, not revoked (as of the TTL) and not expired. */
    public Optional<Caller> find(String presented) {
        if (!TokenStore.wellFormed(presented)) {
            return Optional.empty();
        }
        byte[] hash = TokenStore.sha256(presented);
        if (remembered == null) {
            return lookUp.apply(hash).map(ActiveToken::caller);
        }
        ByteBuffer key = ByteBuffer.wrap(hash);
        ActiveToken token = remembered.getIfPresent(key);
        if (token == null) {
            token = lookUp.apply(hash).orElse(null);
            if (token == null) {
                return Optional.empty();
            }
            remembered.put(key, token);
        }
        if (token.expiredAt(clock.instant())) {
            remembered.invalidate(key);
            return Optional.empty();
        }
        return Optional.of(token.caller());
    }
}
