package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.session.WebSessions;
import io.mergesynthesis.service.testing.TestDatabase;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code api_tokens} and {@code web_sessions} have no row-level security (a token is read before its org is
 * known), so the service roles must not read them at all: a tenant scoped to one org would otherwise list every
 * org's tokens and sessions. Tokens and sessions still work, through functions that answer for one hash.
 */
class TokensAndSessionsByHashTest {

    private static final UUID ORG_A = UUID.fromString("aaaaaaaa-0000-4000-8000-00000000000a");
    private static final UUID ORG_B = UUID.fromString("bbbbbbbb-0000-4000-8000-00000000000b");

    private TestDatabase database;
    private ScopedTransactions transactions;
    private TokenStore tokens;
    private WebSessions sessions;

    @BeforeEach
    void twoOrgsWithATokenAndASessionEach() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
        tokens = new TokenStore(transactions);
        sessions = new WebSessions(transactions, Clock.systemUTC());
        for (UUID org : new UUID[] {ORG_A, ORG_B}) {
            String secret = tokens.mint(Role.ORG_ADMIN, org).secret();
            Caller caller = tokens.find(secret).orElseThrow();
            assertThat(sessions.open(caller, secret)).isPresent();
        }
    }

    @Test
    void aTenantScopedToOneOrgCannotReadTheTokenTable() {
        assertRefused("SELECT count(*) FROM api_tokens WHERE org_id = '" + ORG_B + "'");
        assertRefused("SELECT count(*) FROM api_tokens");
        assertRefused("UPDATE api_tokens SET last_used_at = now() WHERE org_id = '" + ORG_B + "'");
    }

    @Test
    void aTenantScopedToOneOrgCannotReadTheSessionTable() {
        assertRefused("SELECT count(*) FROM web_sessions s JOIN api_tokens t ON t.id = s.token_id");
        assertRefused("SELECT count(*) FROM web_sessions");
        assertRefused("UPDATE web_sessions SET ended_at = now()");
    }

    @Test
    void theSweepRoleCannotReadEitherTable() {
        for (String table : new String[] {"api_tokens", "web_sessions"}) {
            assertThatThrownBy(() -> transactions.crossTenant(h ->
                    h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one()))
                    .isInstanceOf(UnableToExecuteStatementException.class)
                    .hasMessageContaining("permission denied");
        }
    }

    @Test
    void aTokenStillAuthenticatesAndItsUseIsRecorded() {
        TokenStore.MintedToken minted = tokens.mint(Role.INGEST, ORG_A);

        Caller caller = tokens.find(minted.secret()).orElseThrow();

        assertThat(caller.tokenId()).isEqualTo(minted.id());
        assertThat(caller.orgId()).isEqualTo(ORG_A);
        assertThat(caller.role()).isEqualTo(Role.INGEST);
        OffsetDateTime lastUsed = database.jdbi().withHandle(h -> h.createQuery(
                        "SELECT last_used_at FROM api_tokens WHERE id = :id").bind("id", minted.id())
                .mapTo(OffsetDateTime.class).one());
        assertThat(lastUsed).isNotNull();
        assertThat(tokens.find("msk_unknown")).isEmpty();
    }

    @Test
    void aSessionOpensIsFoundViewsAnOrgAndEnds() {
        String secret = tokens.mint(Role.PLATFORM, null).secret();
        Caller platform = tokens.find(secret).orElseThrow();

        WebSessions.Opened opened = sessions.open(platform, secret).orElseThrow();
        WebSession found = sessions.find(opened.secret()).orElseThrow();
        assertThat(found.tokenId()).isEqualTo(platform.tokenId());
        assertThat(found.role()).isEqualTo(Role.PLATFORM);

        sessions.view(found, ORG_B);
        assertThat(sessions.find(opened.secret()).orElseThrow().viewingOrg()).isEqualTo(ORG_B);

        sessions.end(found);
        assertThat(sessions.find(opened.secret())).isEmpty();
    }

    @Test
    void aRevokedTokenOpensNoSession() {
        TokenStore.MintedToken minted = tokens.mint(Role.ORG_ADMIN, ORG_A);
        Caller caller = tokens.find(minted.secret()).orElseThrow();
        tokens.revoke(minted.id().toString());

        assertThat(sessions.open(caller, minted.secret())).isEmpty();
    }

    private void assertRefused(String sql) {
        assertThatThrownBy(() -> transactions.inOrg(ORG_A, h -> h.createQuery(sql).mapTo(Long.class).findOne()))
                .isInstanceOf(UnableToExecuteStatementException.class)
                .hasMessageContaining("permission denied");
    }
}
