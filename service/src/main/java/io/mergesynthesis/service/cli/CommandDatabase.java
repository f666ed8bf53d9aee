package io.mergesynthesis.service.cli;

import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.Optional;
import java.util.UUID;
import net.sourceforge.argparse4j.inf.Namespace;

/** What every command does around its own work: a migrated database, opened and closed the same way. */
final class CommandDatabase {

    private CommandDatabase() {
    }

    /**
     * Runs {@code work} against the configured database, starting (or attaching to) the embedded one when no
     * URL is set, after applying pending migrations. Whatever was started is stopped before this returns, so a
     * command can print its result last, with no log line after it.
     */
    static <R> R use(MergeSynthesisConfiguration config, Work<R> work) throws Exception {
        Optional<EmbeddedDatabase> embedded = Databases.prepare(config);
        try {
            Databases.migrate(config.getDatabase());
            return work.apply(new ScopedTransactions(Databases.forCommand(config.getDatabase())));
        } finally {
            if (embedded.isPresent()) {
                embedded.get().close();
            }
        }
    }

    /** A command's own work on the database. */
    @FunctionalInterface
    interface Work<R> {
        R apply(ScopedTransactions transactions) throws Exception;
    }

    /** The {@code --org} argument as a UUID, or null when it was not given. */
    static UUID org(Namespace namespace) {
        String text = namespace.getString("org");
        if (text == null) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--org must be a UUID, got " + text);
        }
    }
}
