package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.db.DatabaseWait;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.testing.CommandRun;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.testsupport.Wait;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the commands meet the database: they wait for one that is not accepting connections yet, as the server
 * does, and against a database of one's own only {@code db migrate} changes the schema.
 */
class CommandDatabaseTest {

    @TempDir
    Path dir;

    @Test
    void migrateAndTokenCreateWaitForADatabaseThatIsNotUpYet() throws Exception {
        int port = freePort();
        Path data = dir.resolve("pg");
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        Path config = CommandRun.config(dir, url, "databaseStartupWait: 60s");

        // Nothing listens on the port yet: each command's first tries are refused connections.
        FutureTask<CommandRun> migrate = inThreadOfItsOwn("db-migrate", () ->
                CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "migrate", config.toString()));
        awaitPauseForTheDatabase("db-migrate");
        assertThat(migrate).isNotDone();
        try (EmbeddedDatabase pg = start(data, port)) {
            CommandRun migrated = migrate.get(60, TimeUnit.SECONDS);
            assertThat(migrated.failure()).isEmpty();
            assertThat(migrated.err()).contains("Applied");
        }

        // The same for token create, against the now migrated database while it is down.
        FutureTask<CommandRun> create = inThreadOfItsOwn("token-create", () -> CommandRun.run(TokenCommand::new,
                "token", "create", "--role", "platform", config.toString()));
        awaitPauseForTheDatabase("token-create");
        assertThat(create).isNotDone();
        try (EmbeddedDatabase pg = start(data, port)) {
            CommandRun created = create.get(60, TimeUnit.SECONDS);
            assertThat(created.failure()).isEmpty();
            assertThat(new TokenStore(io.mergesynthesis.service.db.ScopedTransactions.on(
                    () -> java.sql.DriverManager.getConnection(url, "postgres", ""))).find(created.lastOutLine()))
                    .isPresent();
        }
    }

    @Test
    void aDatabaseThatStaysAwayEndsTheCommandWithOneClearLine() throws Exception {
        Path config = CommandRun.config(dir, "jdbc:postgresql://127.0.0.1:" + freePort() + "/postgres",
                "databaseStartupWait: 1s");

        CommandRun run = CommandRun.run(TokenCommand::new, "token", "list", config.toString());

        assertThat(run.failure()).isPresent();
        assertThat(run.err()).contains("error: Could not read the schema version", "databaseStartupWait is 1s")
                .doesNotContain("\tat ");
    }

    @Test
    void commandsOtherThanMigrateRefuseASchemaThatIsBehindAndLeaveItSo() throws Exception {
        TestDatabase behind = TestDatabase.migratedTo("1");
        Path config = CommandRun.config(dir, behind.url());

        CommandRun create = CommandRun.run(TokenCommand::new, "token", "create", "--role", "platform",
                config.toString());
        CommandRun list = CommandRun.run(TokenCommand::new, "token", "list", config.toString());
        CommandRun revoke = CommandRun.run(TokenCommand::new, "token", "revoke", "msk_whatever", config.toString());
        CommandRun export = CommandRun.run(ExportEventsCommand::new, "export-events", "--format", "ndjson",
                config.toString());

        for (CommandRun run : new CommandRun[] {create, list, revoke, export}) {
            assertThat(run.failure()).isPresent();
            assertThat(run.err()).contains("schema is behind", "V2", "Run db migrate first").doesNotContain("\tat ");
            assertThat(run.out()).isEmpty();
        }
        assertThat(schemaVersion(behind)).isEqualTo("1");

        CommandRun migrate = CommandRun.run((out, err) -> new DatabaseCommand(err), "db", "migrate", config.toString());
        assertThat(migrate.failure()).isEmpty();
        assertThat(schemaVersion(behind)).isNotEqualTo("1");
        CommandRun again = CommandRun.run(TokenCommand::new, "token", "create", "--role", "platform",
                config.toString());
        assertThat(again.failure()).isEmpty();
        assertThat(new TokenStore(behind.transactions()).find(again.lastOutLine())).isPresent();
        assertThat(new TokenStore(behind.transactions()).mint(Role.PLATFORM, null)).isNotNull();
    }

    private static String schemaVersion(TestDatabase database) {
        return database.jdbi().withHandle(h -> h.createQuery("SELECT version FROM flyway_schema_history "
                + "WHERE success ORDER BY installed_rank DESC LIMIT 1").mapTo(String.class).one());
    }

    /** Runs {@code command} in a thread of its own named {@code name}, whose state the test can look at. */
    private static FutureTask<CommandRun> inThreadOfItsOwn(String name, Callable<CommandRun> command) {
        FutureTask<CommandRun> run = new FutureTask<>(command);
        Thread thread = new Thread(run, name);
        thread.setDaemon(true);
        thread.start();
        return run;
    }

    /**
     * Waits until the command's thread pauses in {@link DatabaseWait} after a refused connection: it met the
     * database away and waits for it, where a command that gave up would have ended.
     */
    private static void awaitPauseForTheDatabase(String name) {
        Wait.until(name + " pausing for the database after a refused connection", Duration.ofSeconds(20), () ->
                Thread.getAllStackTraces().entrySet().stream()
                        .filter(thread -> thread.getKey().getName().equals(name))
                        .anyMatch(thread -> thread.getKey().getState() == Thread.State.TIMED_WAITING
                                && Arrays.stream(thread.getValue()).anyMatch(frame ->
                                        frame.getClassName().equals(DatabaseWait.class.getName()))));
    }

    private static EmbeddedDatabase start(Path data, int port) throws Exception {
        return EmbeddedDatabase.builder().dataDirectory(data).port(port).start();
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
