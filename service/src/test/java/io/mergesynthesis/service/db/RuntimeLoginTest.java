package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import io.mergesynthesis.llm.SharedLimits;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.retention.PartitionUpkeep;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service started with a migration login of its own and a runtime login that holds nothing but what the
 * migration grants it: the migration login owns the schema, the runtime login can change none of it, and the
 * service still ingests, merges, mints and revokes tokens and makes month partitions.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RuntimeLoginTest {

    static final TestDatabase.SeparateLogins LOGINS = TestDatabase.withSeparateLogins();
    static final TestApp APP = TestApp.on(LOGINS.database(),
            ConfigOverride.config("database.user", LOGINS.runtime()),
            ConfigOverride.config("migration.user", LOGINS.owner()),
            ConfigOverride.config("synthesis.workers", "1"),
            ConfigOverride.config("synthesis.pollInterval", "200ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void theMigrationLoginOwnsTheSchemaAndTheRuntimeLoginNothing() {
        Jdbi owner = LOGINS.jdbiAs(LOGINS.owner());
        assertThat(ownerOf("policy_conflicts")).isEqualTo(LOGINS.owner());
        long ownedByRuntime = owner.withHandle(h -> h.createQuery("""
                        SELECT (SELECT count(*) FROM pg_class WHERE relowner = r.oid)
                             + (SELECT count(*) FROM pg_proc WHERE proowner = r.oid)
                          FROM pg_roles r WHERE r.rolname = :login""")
                .bind("login", LOGINS.runtime()).mapTo(Long.class).one());
        assertThat(ownedByRuntime).isZero();
    }

    @Test
    void theRuntimeLoginCannotCreateAlterOrDropInTheSchema() {
        Jdbi runtime = LOGINS.jdbiAs(LOGINS.runtime());
        for (String ddl : List.of(
                "CREATE TABLE smuggled (id int)",
                "ALTER TABLE policy_conflicts ADD COLUMN smuggled int",
                "ALTER TABLE api_tokens DISABLE TRIGGER ALL",
                "DROP TABLE conflict_events",
                "DROP FUNCTION active_token(bytea)",
                "CREATE FUNCTION smuggled() RETURNS int LANGUAGE sql AS 'SELECT 1'")) {
            assertThatThrownBy(() -> runtime.useHandle(h -> h.execute(ddl)))
                    .as(ddl)
                    .hasMessageMatching("(?s).*(permission denied|must be owner).*");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theServiceRunsAsTheRuntimeLogin() throws Exception {
        TokenStore tokens = new TokenStore(LOGINS.transactionsAs(LOGINS.runtime()));
        UUID org = UUID.randomUUID();
        String ingest = tokens.mint(Role.INGEST, org).secret();
        TokenStore.MintedToken admin = tokens.mint(Role.ORG_ADMIN, org);
        String body = """
                {"org_id": "%s", "dedup_key": "runtime-login-1", "action": "tool_call", "target": "jira.create_issue",
                 "rules": [{"policy_id": "p1", "scope": "org", "scope_id": "%s", "effect": "deny", "target": "jira.*"},
                           {"policy_id": "p2", "scope": "member", "scope_id": "m", "effect": "allow", "target": "jira.create_issue"}],
                 "winner_policy_id": "p1", "detected_at": "2026-11-20T10:15:00Z"}""".formatted(org, org);
        var created = APP.post(ingest, "/v1/conflicts", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = json.readTree(created.body()).get("id").asText();

        Wait.until("a worker to merge the conflict", Duration.ofSeconds(30), () -> {
            JsonNode conflict;
            try {
                conflict = json.readTree(APP.get(admin.secret(), "/v1/conflicts/" + id).body());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return "done".equals(conflict.path("synthesis").path("state").asText());
        });

        assertThat(tokens.list()).extracting(TokenStore.ListedToken::id).contains(admin.id());
        assertThat(tokens.revoke(admin.id().toString())).isEqualTo(TokenStore.Revocation.REVOKED);
    }

    @Test
    void theUpkeepMakesMonthPartitionsAsTheRuntimeLogin() {
        PartitionUpkeep upkeep = new PartitionUpkeep(LOGINS.transactionsAs(LOGINS.runtime()), OptionalInt.empty(),
                40);

        PartitionUpkeep.Outcome outcome = upkeep.run();

        assertThat(outcome.hadTurn()).isTrue();
        assertThat(outcome.created()).isNotEmpty();
        String made = outcome.created().get(0);
        assertThat(ownerOf(made)).isEqualTo(LOGINS.owner());
    }

    @Test
    void theRuntimeLoginKeepsTheSharedTokenBucketsOnlyThroughTheirFunctions() {
        SharedTokenBuckets store = new SharedTokenBuckets(LOGINS.jdbiAs(LOGINS.runtime()), Duration.ofSeconds(30));
        SharedLimits.Key key = new SharedLimits.Key("anthropic", "runtime-login");

        SharedLimits.Reservation first = store.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0));
        assertThat(first.shared()).as("the store answered the runtime login").isTrue();
        assertThat(first.granted()).isTrue();
        store.settle(key, Map.of(Kind.INPUT_TOKENS, new SharedLimits.Ending(2000, 0, 0,
                Optional.of(new Stated(OptionalLong.of(30_000), 20_000, Instant.now().plusSeconds(20))), true,
                first.held().get(Kind.INPUT_TOKENS))));
        assertThat(store.available()).as("the settle went through").isTrue();
        assertThat(store.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0)).held().get(Kind.INPUT_TOKENS).drawn())
                .as("the first answer set the level").isTrue();
        for (String table : List.of("shared_token_buckets", "shared_token_holds")) {
            assertThatThrownBy(() -> LOGINS.jdbiAs(LOGINS.runtime()).withHandle(h -> h.createQuery(
                    "SELECT count(*) FROM " + table).mapTo(Long.class).one()))
                    .as(table).hasMessageContaining("permission denied");
        }
    }

    private static String ownerOf(String table) {
        return LOGINS.jdbiAs(LOGINS.owner()).withHandle(h -> h.createQuery(
                        "SELECT tableowner FROM pg_tables WHERE tablename = :t").bind("t", table)
                .mapTo(String.class).one());
    }
}
