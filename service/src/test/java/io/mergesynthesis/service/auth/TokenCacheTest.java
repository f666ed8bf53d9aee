package io.mergesynthesis.service.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.auth.TokenStore.ActiveToken;
import io.mergesynthesis.service.testing.HandClock;
import io.mergesynthesis.service.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The token cache in front of the real token table: what it saves, and how long a revocation takes to bite. */
class TokenCacheTest {

    private static final Duration TTL = Duration.ofSeconds(5);

    private final TestDatabase database = TestDatabase.fresh();
    private final TokenStore store = new TokenStore(database.transactions());
    private final HandClock clock = new HandClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicInteger reads = new AtomicInteger();
    private final Function<byte[], Optional<ActiveToken>> countedLookUp = hash -> {
        reads.incrementAndGet();
        return store.lookUp(hash);
    };

    @Test
    void aBusyCallerReadsTheTokenTableOncePerTtl() {
        TokenCache cache = new TokenCache(countedLookUp, TTL, 100, clock);
        String token = store.mint(Role.ORG_ADMIN, java.util.UUID.randomUUID()).secret();

        for (int i = 0; i < 50; i++) {
            assertThat(cache.find(token)).isPresent();
        }
        assertThat(reads).hasValue(1);

        clock.advance(TTL.plusMillis(1));
        assertThat(cache.find(token)).isPresent();
        assertThat(reads).hasValue(2);
    }

    @Test
    void aRevocationBitesOnceTheTtlHasPassed() {
        TokenCache cache = new TokenCache(countedLookUp, TTL, 100, clock);
        var token = store.mint(Role.PLATFORM, null);
        assertThat(cache.find(token.secret())).isPresent();

        store.revoke(token.prefix());

        // Within the TTL the remembered token still counts: the documented price of the cache.
        clock.advance(TTL.minusMillis(1));
        assertThat(cache.find(token.secret())).isPresent();
        clock.advance(Duration.ofMillis(2));
        assertThat(cache.find(token.secret())).isEmpty();
    }

    @Test
    void anExpiryBitesOnTimeEvenWhileTheTokenIsRemembered() {
        TokenCache cache = new TokenCache(countedLookUp, Duration.ofHours(1), 100, clock);
        var token = store.mint(Role.PLATFORM, null, Duration.ofMinutes(1));
        clock.set(Instant.now());
        assertThat(cache.find(token.secret())).isPresent();

        clock.set(token.expiresAt().minusMillis(1));
        assertThat(cache.find(token.secret())).isPresent();
        clock.set(token.expiresAt());
        assertThat(cache.find(token.secret())).isEmpty();
        assertThat(reads).hasValue(1);
    }

    @Test
    void unknownTokensAreNotRememberedSoANewTokenWorksAtOnce() {
        TokenCache cache = new TokenCache(countedLookUp, TTL, 100, clock);
        assertThat(cache.find("msk_not-minted-yet")).isEmpty();
        assertThat(cache.find("msk_not-minted-yet")).isEmpty();
        assertThat(cache.find("not a token at all")).isEmpty();
        assertThat(reads).hasValue(2);

        String minted = store.mint(Role.PLATFORM, null).secret();
        assertThat(cache.find(minted)).isPresent();
    }

    @Test
    void aZeroTtlReadsTheTableOnEveryRequest() {
        TokenCache cache = new TokenCache(countedLookUp, Duration.ZERO, 100, clock);
        var token = store.mint(Role.PLATFORM, null);
        for (int i = 0; i < 5; i++) {
            assertThat(cache.find(token.secret())).isPresent();
        }
        assertThat(reads).hasValue(5);
        store.revoke(token.id().toString());
        assertThat(cache.find(token.secret())).isEmpty();
    }

    @Test
    void theCacheIsBounded() {
        TokenCache cache = new TokenCache(countedLookUp, TTL, 2, clock);
        var tokens = java.util.stream.IntStream.range(0, 20).mapToObj(i -> store.mint(Role.PLATFORM, null).secret())
                .toList();
        for (int round = 0; round < 3; round++) {
            tokens.forEach(cache::find);
        }
        // Two remembered at most: nearly every look-up of twenty rotating tokens reads the table again.
        assertThat(reads.get()).isGreaterThan(50);
    }
}
