package io.mergesynthesis.service.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.testing.HandClock;
import io.mergesynthesis.service.testing.TestDatabase;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session ends after {@code web.sessionIdle} without use and {@code web.sessionMax} after sign-in, whichever
 * comes first, on the database's rows and a clock moved by hand; signing out ends it at once and hands back the ID
 * token a person's session was opened with, for the provider's own sign-out.
 */
class SessionLimitsTest {

    static final UUID ORG = UUID.fromString("5e55105a-0000-4000-8000-000000000001");
    static final Duration IDLE = Duration.ofMinutes(30);
    static final Duration MAX = Duration.ofHours(12);

    static TestDatabase database;

    @BeforeAll
    static void database() {
        database = TestDatabase.fresh();
    }

    private static WebSessions.Person alice() {
        return new WebSessions.Person("kc-" + UUID.randomUUID(), "alice@example.com", "Alice Example",
                Role.ORG_ADMIN, ORG);
    }

    @Test
    void aPersonsSessionLastsWhileUsedAndEndsAfterItsIdleLimit() {
        HandClock clock = new HandClock();
        WebSessions sessions = new WebSessions(database.transactions(), clock, IDLE, MAX);
        WebSessions.Opened opened = sessions.open(alice(), "id-token");

        for (int i = 0; i < 5; i++) {
            clock.advance(IDLE.minusMinutes(1));
            assertThat(sessions.find(opened.secret())).as("used every 29 minutes").isPresent();
        }
        clock.advance(IDLE.plusSeconds(1));
        assertThat(sessions.find(opened.secret())).as("unused for 30 minutes").isEmpty();
    }

    @Test
    void aBusySessionEndsAtItsAbsoluteLimit() {
        HandClock clock = new HandClock();
        WebSessions sessions = new WebSessions(database.transactions(), clock, IDLE, MAX);
        WebSessions.Opened opened = sessions.open(alice(), "id-token");
        Duration used = Duration.ZERO;
        while (used.plusMinutes(10).compareTo(MAX) < 0) {
            clock.advance(Duration.ofMinutes(10));
            used = used.plusMinutes(10);
            assertThat(sessions.find(opened.secret())).isPresent();
        }
        clock.advance(MAX.minus(used));
        assertThat(sessions.find(opened.secret())).as("12 hours after sign-in").isEmpty();
    }

    @Test
    void aPersonsSessionCarriesTheirNameRoleAndOrg() {
        WebSessions sessions = new WebSessions(database.transactions(), new HandClock(), IDLE, MAX);
        WebSessions.Person alice = alice();
        WebSession found = sessions.find(sessions.open(alice, "id-token").secret()).orElseThrow();
        assertThat(found.role()).isEqualTo(Role.ORG_ADMIN);
        assertThat(found.org()).isEqualTo(ORG);
        assertThat(found.tokenId()).isNull();
        assertThat(found.actor().isPerson()).isTrue();
        assertThat(found.actor().subject()).isEqualTo(alice.subject());
        assertThat(found.actor().inWords()).isEqualTo("Alice Example");
        assertThat(found.caller().actor()).isEqualTo(found.actor());
    }

    @Test
    void signingOutEndsTheSessionAndHandsBackItsIdTokenOnce() {
        WebSessions sessions = new WebSessions(database.transactions(), new HandClock(), IDLE, MAX);
        WebSessions.Opened opened = sessions.open(alice(), "the-id-token");
        WebSession session = sessions.find(opened.secret()).orElseThrow();
        assertThat(sessions.end(session)).contains("the-id-token");
        assertThat(sessions.find(opened.secret())).isEmpty();
        assertThat(sessions.end(session)).isEmpty();
    }

    @Test
    void aTokensSessionKeepsTheTokensLabelAndEndsWithoutAnIdToken() {
        HandClock clock = new HandClock();
        WebSessions sessions = new WebSessions(database.transactions(), clock, IDLE, MAX);
        TokenStore tokens = new TokenStore(database.transactions());
        String secret = tokens.mint(Role.ORG_VIEWER, ORG, null, "audit desk", null).secret();
        Caller caller = tokens.find(secret).orElseThrow();
        WebSessions.Opened opened = sessions.open(caller, secret).orElseThrow();
        WebSession found = sessions.find(opened.secret()).orElseThrow();
        assertThat(found.role()).isEqualTo(Role.ORG_VIEWER);
        assertThat(found.mayChangeConflicts()).isFalse();
        assertThat(found.actor().inWords()).isEqualTo("token audit desk");
        assertThat(sessions.end(found)).isEmpty();
        assertThat(sessions.find(opened.secret())).isEmpty();
    }

    @Test
    void limitsMustBeLongerThanZero() {
        assertThatThrownBy(() -> new WebSessions(database.transactions(), new HandClock(), Duration.ZERO, MAX))
                .hasMessageContaining("web.sessionIdle");
    }
}
