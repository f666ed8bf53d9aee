package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.testing.CommandRun;
import io.mergesynthesis.service.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenCommandTest {

    @TempDir
    Path dir;

    private CommandRun token(Path config, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "token";
        System.arraycopy(args, 0, all, 1, args.length);
        all[all.length - 1] = config.toString();
        return CommandRun.run(TokenCommand::new, all);
    }

    @Test
    void printsTheNewTokenAloneOnTheLastLineAndStoresOnlyItsHash() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = CommandRun.config(dir, database.url());
        UUID org = UUID.randomUUID();

        // Through the application itself, as java -jar runs it: the command is registered and prints to stdout.
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            new MergeSynthesisApplication().run("token", "create", "--role", "org_admin", "--org", org.toString(),
                    config.toString());
        } finally {
            System.setOut(original);
        }

        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        String token = lines.get(lines.size() - 1);
        assertThat(token).startsWith("msk_").doesNotContainAnyWhitespaces().hasSizeGreaterThan(40);
        var caller = new TokenStore(database.transactions()).find(token);
        assertThat(caller).hasValueSatisfying(c -> {
            assertThat(c.role()).isEqualTo(Role.ORG_ADMIN);
            assertThat(c.orgId()).isEqualTo(org);
        });
    }

    @Test
    void refusesAnOrgBoundRoleWithoutAnOrgAndAPlatformTokenWithOne() {
        TokenStore store = new TokenStore(TestDatabase.fresh().transactions());
        assertThatThrownBy(() -> store.mint(Role.SIEM, null)).hasMessageContaining("--org");
        assertThatThrownBy(() -> store.mint(Role.PLATFORM, UUID.randomUUID())).hasMessageContaining("platform");
    }

    @Test
    void listShowsEveryTokenByIdAndPrefixButNeverItsSecretOrHash() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = CommandRun.config(dir, database.url());
        UUID org = UUID.randomUUID();
        String admin = token(config, "create", "--role", "org_admin", "--org", org.toString(), "--expires-in",
                "never", "--label", "inbox robot").lastOutLine();
        String platform = token(config, "create", "--role", "platform", "--expires-in", "12h").lastOutLine();
        assertThat(new TokenStore(database.transactions()).find(admin)).isPresent();

        CommandRun list = token(config, "list");

        assertThat(list.failure()).isEmpty();
        assertThat(list.outLines()).hasSize(3);
        String adminLine = list.outLines().stream().filter(l -> l.contains("org_admin")).findFirst().orElseThrow();
        String[] adminColumns = adminLine.split("\\s{2,}");
        assertThat(adminColumns).containsExactly(adminColumns[0], admin.substring(0, TokenStore.PREFIX_LENGTH),
                "org_admin", org.toString(), adminColumns[4], adminColumns[5], "never", "active", "inbox robot");
        // It was just used: last used is a time, not "never".
        assertThat(Instant.parse(adminColumns[5])).isAfter(Instant.now().minusSeconds(60));
        String platformLine = list.outLines().stream().filter(l -> l.contains("platform")).findFirst().orElseThrow();
        assertThat(platformLine).contains(platform.substring(0, TokenStore.PREFIX_LENGTH), "(every org)", "never");
        Instant expires = Instant.parse(platformLine.split("\\s{2,}")[6]);
        assertThat(expires).isBetween(Instant.now().plus(Duration.ofHours(12)).minusSeconds(60),
                Instant.now().plus(Duration.ofHours(12)));
        for (String secret : List.of(admin, platform)) {
            assertThat(list.out()).doesNotContain(secret.substring(TokenStore.PREFIX_LENGTH, TokenStore.PREFIX_LENGTH + 8))
                    .doesNotContainIgnoringCase(HexFormat.of().formatHex(hash(secret)).substring(0, 16));
        }
    }

    @Test
    void revokeByPrefixOrIdRefusesTheTokenAndTouchesNoOther() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = CommandRun.config(dir, database.url());
        TokenStore store = new TokenStore(database.transactions());
        var first = store.mint(Role.PLATFORM, null);
        var second = store.mint(Role.PLATFORM, null);
        var third = store.mint(Role.PLATFORM, null);

        CommandRun byPrefix = token(config, "revoke", first.prefix());
        CommandRun byId = token(config, "revoke", second.id().toString());

        assertThat(byPrefix.failure()).isEmpty();
        assertThat(byPrefix.out()).contains("Revoked " + first.prefix());
        assertThat(byId.failure()).isEmpty();
        assertThat(store.find(first.secret())).isEmpty();
        assertThat(store.find(second.secret())).isEmpty();
        assertThat(store.find(third.secret())).isPresent();
        assertThat(token(config, "revoke", first.prefix()).out()).contains("already revoked");
        assertThat(token(config, "list").outLines()).filteredOn(l -> l.contains("revoked")).hasSize(2);
    }

    @Test
    void revokeRefusesAnUnknownOrAmbiguousNameAndChangesNothing() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = CommandRun.config(dir, database.url());
        TokenStore store = new TokenStore(database.transactions());
        var one = store.mint(Role.PLATFORM, null);
        var other = store.mint(Role.PLATFORM, null);
        database.jdbi().useHandle(h -> h.execute("UPDATE api_tokens SET prefix = 'msk_same1234'"));

        CommandRun ambiguous = token(config, "revoke", "msk_same1234");
        CommandRun unknown = token(config, "revoke", "msk_nothere0");

        assertThat(ambiguous.failure()).isPresent();
        assertThat(ambiguous.err()).contains("2 tokens have the prefix msk_same1234", "revoke by id")
                .doesNotContain("\tat ");
        assertThat(unknown.failure()).isPresent();
        assertThat(unknown.err()).contains("no token has the id or prefix msk_nothere0");
        assertThat(store.find(one.secret())).isPresent();
        assertThat(store.find(other.secret())).isPresent();
    }

    @Test
    void anExpiredTokenIsRefused() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = CommandRun.config(dir, database.url());
        String token = token(config, "create", "--role", "platform", "--expires-in", "1m").lastOutLine();
        TokenStore store = new TokenStore(database.transactions());
        assertThat(store.find(token)).isPresent();

        database.jdbi().useHandle(h -> h.execute("UPDATE api_tokens SET expires_at = now() - interval '1 second'"));

        assertThat(store.find(token)).isEmpty();
        assertThat(token(config, "list").out()).contains("expired");
    }

    @Test
    void expiresInTakesMinutesHoursOrDaysAndRefusesTheRest() throws Exception {
        assertThat(TokenCommand.expiresIn("90d")).isEqualTo(Duration.ofDays(90));
        assertThat(TokenCommand.expiresIn("12h")).isEqualTo(Duration.ofHours(12));
        assertThat(TokenCommand.expiresIn("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(TokenCommand.expiresIn(null)).as("the default").isEqualTo(Duration.ofDays(90));
        assertThat(TokenCommand.expiresIn("never")).as("only when asked").isNull();
        Path config = CommandRun.config(dir, TestDatabase.fresh().url());
        for (String bad : List.of("0d", "-1d", "90", "1y", "1.5h", "soon", "forever")) {
            CommandRun run = token(config, "create", "--role", "platform", "--expires-in", bad);
            assertThat(run.failure()).as(bad).isPresent();
            assertThat(run.err()).as(bad).contains("--expires-in");
        }
    }

    @Test
    void recordsUseAtMostOnceAMinute() {
        TestDatabase database = TestDatabase.fresh();
        TokenStore store = new TokenStore(database.transactions());
        var token = store.mint(Role.PLATFORM, null);
        assertThat(lastUsed(database, token.id())).isNull();

        store.find(token.secret());
        OffsetDateTime first = lastUsed(database, token.id());
        store.find(token.secret());
        store.find(token.secret());

        assertThat(first).isNotNull();
        assertThat(lastUsed(database, token.id())).isEqualTo(first);
        database.jdbi().useHandle(h -> h.execute("UPDATE api_tokens SET last_used_at = now() - interval '61 seconds'"));
        OffsetDateTime old = lastUsed(database, token.id());
        store.find(token.secret());
        assertThat(lastUsed(database, token.id())).isAfter(old.plus(60, ChronoUnit.SECONDS));
    }

    private static OffsetDateTime lastUsed(TestDatabase database, UUID id) {
        return database.jdbi().withHandle(h -> h.createQuery("SELECT last_used_at FROM api_tokens WHERE id = :id")
                .bind("id", id).mapTo(OffsetDateTime.class).one());
    }

    private static byte[] hash(String secret) throws Exception {
        return java.security.MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    }
}
