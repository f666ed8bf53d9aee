package io.mergesynthesis.service.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.TestDatabase;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Minting and revoking a token are events of the stream, written with the change: of the token's org (none for a
 * platform token), naming the token by id, prefix and role and who acted, and never carrying the secret or its hash.
 */
class TokenEventsTest {

    static TestDatabase database;
    static TokenStore tokens;

    @BeforeAll
    static void store() {
        database = TestDatabase.fresh();
        tokens = new TokenStore(database.transactions());
    }

    @Test
    void theCommandLinesMintAndRevokeAreEventsOfTheTokensOrg() {
        UUID org = UUID.randomUUID();
        TokenStore.MintedToken minted = tokens.mint(Role.SIEM, org, Duration.ofDays(90));
        tokens.revoke(minted.prefix());
        tokens.revoke(minted.id().toString());

        List<Map<String, Object>> events = eventsAbout(minted.id());
        assertThat(events).extracting(e -> e.get("event_type")).containsExactly("token_minted", "token_revoked");
        for (Map<String, Object> e : events) {
            assertThat(e.get("org_id")).isEqualTo(org);
            assertThat(e.get("conflict_id")).isNull();
            String details = (String) e.get("details");
            assertThat(details).contains("\"requested_by\": \"cli\"").contains(minted.prefix())
                    .contains("\"subject_token_role\": \"siem\"")
                    .doesNotContain(minted.secret())
                    .doesNotContain(HexFormat.of().formatHex(TokenStore.sha256(minted.secret())));
        }
        assertThat((String) events.get(0).get("details")).contains(minted.expiresAt().toString().substring(0, 16));
    }

    @Test
    void aPlatformTokenMintedFromThePagesNamesWhoActedAndBelongsToNoOrg() {
        Caller operator = new Caller(UUID.randomUUID(), Role.PLATFORM, null);
        TokenStore.MintedToken minted = tokens.mint(Role.PLATFORM, null, null, operator);
        tokens.revoke(minted.id().toString(), operator);

        List<Map<String, Object>> events = eventsAbout(minted.id());
        assertThat(events).extracting(e -> e.get("event_type")).containsExactly("token_minted", "token_revoked");
        for (Map<String, Object> e : events) {
            assertThat(e.get("org_id")).isNull();
            assertThat((String) e.get("details")).contains("\"requested_by\": \"token\"")
                    .contains("\"token_id\": \"" + operator.tokenId() + "\"").contains("\"role\": \"platform\"")
                    .doesNotContain(minted.secret());
        }
    }

    @Test
    void aRefusedMintWritesNoEvent() {
        long before = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM conflict_events WHERE event_type = 'token_minted'").mapTo(Long.class).one());
        try {
            tokens.mint(Role.ORG_ADMIN, null, null, null);
        } catch (IllegalArgumentException expected) {
            assertThat(expected).hasMessageContaining("needs --org");
        }
        long after = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM conflict_events WHERE event_type = 'token_minted'").mapTo(Long.class).one());
        assertThat(after).isEqualTo(before);
    }

    private static List<Map<String, Object>> eventsAbout(UUID token) {
        return database.jdbi().withHandle(h -> h.createQuery("""
                        SELECT event_type, org_id, conflict_id, details::text AS details FROM conflict_events
                         WHERE details ->> 'subject_token_id' = :token ORDER BY id""")
                .bind("token", token.toString()).mapToMap().list());
    }
}
