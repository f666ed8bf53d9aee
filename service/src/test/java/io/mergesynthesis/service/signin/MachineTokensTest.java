package io.mergesynthesis.service.signin;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A machine's access token from the identity provider: taken when this issuer signed it for the machine audience
 * with one machine role and an org; anything else is no caller at all (401), never a guess.
 */
class MachineTokensTest {

    static final String AUDIENCE = "merge-synthesis-api";
    static final UUID ORG = UUID.randomUUID();
    static StandInIdentityProvider standIn;
    static RSAKey key;
    static MachineTokens machines;

    @BeforeAll
    static void provider() {
        standIn = StandInIdentityProvider.start();
        key = StandInIdentityProvider.newKey("machine-key");
        standIn.publish(key);
        machines = new MachineTokens(new IdentityProvider(standIn.issuer(), StandInIdentityProvider.CLIENT_ID,
                StandInIdentityProvider.CLIENT_SECRET, URI.create("http://127.0.0.1:8080/auth/callback"),
                Duration.ofSeconds(60)), AUDIENCE, "org_id", "roles");
    }

    @AfterAll
    static void stop() {
        standIn.close();
    }

    private static Optional<Caller> present(RSAKey by, UnaryOperator<JWTClaimsSet.Builder> shape) {
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(standIn.issuer()).audience(AUDIENCE).subject("service-account-engine")
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(300)))
                .claim("azp", "policy-engine").claim("roles", "ingest").claim("org_id", ORG.toString());
        return machines.apply(StandInIdentityProvider.sign(by, shape.apply(claims).build()));
    }

    @Test
    void anIngestTokenOfThisIssuerForThisAudienceIsAnIngestCallerOfItsOrg() {
        Caller caller = present(key, c -> c).orElseThrow();
        assertThat(caller.role()).isEqualTo(Role.INGEST);
        assertThat(caller.orgId()).isEqualTo(ORG);
        assertThat(caller.tokenId()).isNull();
        assertThat(caller.actor().inWords()).isEqualTo("client policy-engine");
        assertThat(present(key, c -> c.claim("roles", List.of("siem", "offline_access"))).orElseThrow().role())
                .isEqualTo(Role.SIEM);
    }

    @Test
    void everythingElseIsNoCaller() {
        assertThat(present(key, c -> c.audience("another-api"))).as("another audience").isEmpty();
        assertThat(present(key, c -> c.issuer("https://elsewhere.example"))).as("another issuer").isEmpty();
        assertThat(present(key, c -> c.expirationTime(Date.from(Instant.now().minusSeconds(600)))))
                .as("expired").isEmpty();
        assertThat(present(StandInIdentityProvider.newKey("machine-key"), c -> c)).as("another key").isEmpty();
        assertThat(present(key, c -> c.claim("roles", List.of("ingest", "siem")))).as("two roles").isEmpty();
        assertThat(present(key, c -> c.claim("roles", "platform"))).as("not a machine role").isEmpty();
        assertThat(present(key, c -> c.claim("roles", "org_admin"))).as("a person's role").isEmpty();
        assertThat(present(key, c -> c.claim("org_id", null))).as("no org").isEmpty();
        assertThat(machines.apply("not.a.token")).isEmpty();
        assertThat(machines.apply("msk_looks-like-ours")).isEmpty();
    }
}
