package io.mergesynthesis.service.cli;

import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.db.ConnectionRoutes;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.DatabaseWait;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * What every command does around its own work: the database waited for, checked or migrated, opened and closed
 * the same way.
 *
 * <p>Commands wait for an unavailable database as the server does, for up to {@code databaseStartupWait}: a
 * command run by a deploy script next to a database that is still starting should not fail on the first
 * refused connection. Against a database of one's own, only {@code db migrate} changes the schema: a schema
 * change belongs to whoever rolls the release out, once, not to whichever command happens to run first. Other
 * commands refuse to work on a schema that is behind. The embedded default still migrates by itself, as the
 * server does there, and says so.
 */
final class CommandDatabase {

    private CommandDatabase() {
    }

    /**
     * Runs {@code work} against the configured database once its schema is current: the embedded one (started
     * or attached to when no URL is set) is migrated first; any other must have been migrated with
     * {@code db migrate}. Whatever was started is stopped before this returns, so a command can print its result
     * last, with no log line after it.
     */
    static <R> R use(MergeSynthesisConfiguration config, PrintStream err, Work<R> work) throws Exception {
        Optional<EmbeddedDatabase> embedded = prepare(config);
        try {
            DatabaseWait wait = waitFor(config);
            if (embedded.isPresent()) {
                int applied = wait.get("apply the migrations", () -> Databases.migrate(config.getDatabase(), config.getMigration()));
                if (applied > 0) {
                    err.println("Applied " + applied + " pending migration(s) to the embedded database first. "
                            + "With DATABASE_URL set, commands leave that to db migrate.");
                }
            } else {
                List<String> pending = wait.get("read the schema version",
                        () -> Databases.pending(config.getDatabase()));
                if (!pending.isEmpty()) {
                    throw new CommandRefused("The database schema is behind this build: " + pending.size()
                            + " migration(s) not applied yet (" + String.join(", ", pending) + "). Run db migrate "
                            + "first: java -jar merge-synthesis.jar db migrate config.yml");
                }
            }
            return work.apply(Databases.transactionsForCommand(config.getDatabase()));
        } finally {
            if (embedded.isPresent()) {
                embedded.get().close();
            }
        }
    }

    /** Applies pending migrations to the configured database, waiting for it as the server does. */
    static int migrate(MergeSynthesisConfiguration config) throws Exception {
        Optional<EmbeddedDatabase> embedded = prepare(config);
        try {
            return waitFor(config).get("apply the migrations", () -> Databases.migrate(config.getDatabase(), config.getMigration()));
        } finally {
            if (embedded.isPresent()) {
                embedded.get().close();
            }
        }
    }

    /** The embedded database when it is the one configured; the configured URL made safe for its pooler. */
    private static Optional<EmbeddedDatabase> prepare(MergeSynthesisConfiguration config) {
        ConnectionRoutes routes = config.connectionRoutes();
        Optional<EmbeddedDatabase> embedded = Databases.prepare(config.getDatabase(), config.getEmbeddedDatabase());
        routes.applyTo(config.getDatabase());
        return embedded;
    }

    private static DatabaseWait waitFor(MergeSynthesisConfiguration config) {
        return DatabaseWait.upTo(config.getDatabaseStartupWait().toJavaDuration());
    }

    /** A command's own work on the database. */
    @FunctionalInterface
    interface Work<R> {
        R apply(ScopedTransactions transactions) throws Exception;
    }

    /** The {@code --org} argument as a UUID, or null when it was not given. */
    static UUID org(Namespace namespace) {
        return uuid(namespace, "org");
    }

    /** The {@code --NAME} argument as a UUID, or null when it was not given. */
    static UUID uuid(Namespace namespace, String name) {
        String text = namespace.getString(name);
        if (text == null) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new CommandRefused("--" + name + " must be a UUID, got " + text);
        }
    }

    /**
     * How a command reports a failure: a refusal (bad arguments, a schema that is behind, a database that stayed
     * away) as one line of what to do, anything else with its stack trace, for a bug report.
     */
    static void report(PrintWriter err, Throwable failure) {
        if (failure instanceof CommandRefused || failure instanceof IllegalArgumentException
                || DatabaseUnavailable.isCauseOf(failure)) {
            err.println("error: " + failure.getMessage());
        } else {
            failure.printStackTrace(err);
        }
        err.flush();
    }

    /** A command that cannot do what it was asked, for a reason its message gives in full. */
    static final class CommandRefused extends RuntimeException {
        CommandRefused(String message) {
            super(message);
        }
    }
}
