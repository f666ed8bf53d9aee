package io.mergesynthesis.service.signin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ID token's checks and the code exchange, against a provider on a loopback port that signs what each test
 * asks for: a good token passes; another audience, another issuer, an expired token, an unknown key, another
 * nonce, a code used twice and a wrong PKCE verifier are each refused, saying which check failed. A key that
 * appears in the key set after the first fetch (a rotation) is fetched and accepted.
 */
class IdentityProviderTest {

    static final URI CALLBACK = URI.create("http://127.0.0.1:8080/auth/callback");
    static StandInIdentityProvider standIn;
    static RSAKey key;

    @BeforeAll
    static void provider() {
        standIn = StandInIdentityProvider.start();
        key = StandInIdentityProvider.newKey("key-1");
        standIn.publish(key);
    }

    @AfterAll
    static void stop() {
        standIn.close();
    }

    private static IdentityProvider console(Duration keyRefetch) {
        return new IdentityProvider(standIn.issuer(), StandInIdentityProvider.CLIENT_ID,
                StandInIdentityProvider.CLIENT_SECRET, CALLBACK, Duration.ofSeconds(60), keyRefetch);
    }

    private static JWTClaimsSet.Builder claims(ProviderSignIn signIn) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder()
                .issuer(standIn.issuer())
                .audience(StandInIdentityProvider.CLIENT_ID)
                .subject("person-" + UUID.randomUUID())
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(300)))
                .claim("nonce", signIn.nonce())
                .claim("roles", List.of("org_admin"))
                .claim("org_id", UUID.randomUUID().toString())
                .claim("name", "Alice Example");
    }

    /** Signs in through the stand-in with the token {@code shape} makes of good claims, signed by {@code by}. */
    private static IdentityProvider.VerifiedSignIn signIn(IdentityProvider console, RSAKey by,
                                                         UnaryOperator<JWTClaimsSet.Builder> shape) throws Exception {
        ProviderSignIn signIn = ProviderSignIn.fresh();
        URI authorize = console.authorizationRequest(signIn);
        assertThat(authorize.getQuery()).contains("code_challenge_method=S256")
                .contains("state=" + signIn.state()).contains("nonce=" + signIn.nonce());
        String code = "code-" + UUID.randomUUID();
        standIn.issue(code, StandInIdentityProvider.s256(signIn.verifier()),
                StandInIdentityProvider.sign(by, shape.apply(claims(signIn)).build()));
        return console.finish(code, signIn);
    }

    @Test
    void aGoodTokenPassesWithItsClaims() throws Exception {
        var verified = signIn(console(Duration.ofSeconds(30)), key, c -> c);
        assertThat(verified.claims()).containsEntry("name", "Alice Example").containsKey("org_id");
        assertThat(verified.idToken()).isNotBlank();
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() {
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), key, c -> c.audience("another-app")))
                .isInstanceOf(IdentityProvider.SignInRefused.class).hasMessageContaining("audience");
    }

    @Test
    void aTokenOfAnotherIssuerIsRefused() {
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), key,
                c -> c.issuer("https://elsewhere.example")))
                .isInstanceOf(IdentityProvider.SignInRefused.class).hasMessageContaining("issuer");
    }

    @Test
    void anExpiredTokenIsRefusedOutsideTheSkewAndAcceptedWithinIt() throws Exception {
        Instant now = Instant.now();
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), key,
                c -> c.issueTime(Date.from(now.minusSeconds(900))).expirationTime(Date.from(now.minusSeconds(120)))))
                .isInstanceOf(IdentityProvider.SignInRefused.class).hasMessageContaining("xpired");
        assertThat(signIn(console(Duration.ofSeconds(30)), key,
                c -> c.issueTime(Date.from(now.minusSeconds(600))).expirationTime(Date.from(now.minusSeconds(20)))))
                .isNotNull();
    }

    @Test
    void aTokenSignedByAKeyTheProviderDoesNotPublishIsRefused() {
        RSAKey stranger = StandInIdentityProvider.newKey("stranger");
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), stranger, c -> c))
                .isInstanceOf(IdentityProvider.SignInRefused.class);
        RSAKey impostor = StandInIdentityProvider.newKey("key-1");
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), impostor, c -> c))
                .as("a key that borrows a published key's id").isInstanceOf(IdentityProvider.SignInRefused.class);
    }

    @Test
    void aTokenOfAnotherSignInsNonceIsRefused() {
        assertThatThrownBy(() -> signIn(console(Duration.ofSeconds(30)), key, c -> c.claim("nonce", "another")))
                .isInstanceOf(IdentityProvider.SignInRefused.class).hasMessageContaining("nonce");
    }

    @Test
    void aCodeIsExchangedOnceAndOnlyWithItsVerifier() throws Exception {
        IdentityProvider console = console(Duration.ofSeconds(30));
        ProviderSignIn signIn = ProviderSignIn.fresh();
        standIn.issue("once", StandInIdentityProvider.s256(signIn.verifier()),
                StandInIdentityProvider.sign(key, claims(signIn).build()));
        assertThat(console.finish("once", signIn)).isNotNull();
        assertThatThrownBy(() -> console.finish("once", signIn))
                .isInstanceOf(IdentityProvider.SignInRefused.class).hasMessageContaining("invalid_grant");

        ProviderSignIn other = ProviderSignIn.fresh();
        standIn.issue("stolen", StandInIdentityProvider.s256(signIn.verifier()),
                StandInIdentityProvider.sign(key, claims(other).build()));
        assertThatThrownBy(() -> console.finish("stolen", other))
                .as("another browser's verifier").isInstanceOf(IdentityProvider.SignInRefused.class)
                .hasMessageContaining("invalid_grant");
    }

    @Test
    void aRotatedKeyIsFetchedWhenATokenNamesIt() throws Exception {
        IdentityProvider console = console(Duration.ZERO);
        signIn(console, key, c -> c);
        int fetches = standIn.keyFetches();
        RSAKey rotated = StandInIdentityProvider.newKey("key-2");
        standIn.publish(key, rotated);
        try {
            assertThat(signIn(console, rotated, c -> c)).isNotNull();
            assertThat(standIn.keyFetches()).isGreaterThan(fetches);
        } finally {
            standIn.publish(key);
        }
    }

    @Test
    void anUnreachableProviderIsReportedAsUnavailable() {
        IdentityProvider nowhere = new IdentityProvider("http://127.0.0.1:9/realms/none", "c", "s", CALLBACK,
                Duration.ofSeconds(60));
        assertThatThrownBy(() -> nowhere.authorizationRequest(ProviderSignIn.fresh()))
                .isInstanceOf(IdentityProvider.ProviderUnavailable.class).hasMessageContaining("127.0.0.1:9");
    }

    @Test
    void theSignInCookieTakesBackOnlyWhatItGave() {
        ProviderSignIn signIn = ProviderSignIn.fresh();
        assertThat(ProviderSignIn.ofCookie(signIn.cookieValue())).contains(signIn);
        for (String bad : new String[] {null, "", "a.b.c", signIn.cookieValue() + ".x",
                signIn.cookieValue().replace('.', ','), signIn.state() + "." + signIn.nonce() + "." + "!".repeat(86)}) {
            assertThat(ProviderSignIn.ofCookie(bad)).as(String.valueOf(bad)).isEmpty();
        }
    }
}
