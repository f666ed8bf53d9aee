package io.mergesynthesis.service.db;

import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import org.apache.tomcat.jdbc.pool.PoolExhaustedException;

/**
 * Tells a database that cannot be reached right now from a statement that went wrong. The first passes by
 * itself (a restart, a network blip, every connection slot taken) and is worth waiting out; the second is a
 * bug or bad data and waiting changes nothing. The one place that draws this line, for the server's start,
 * the claim loop, the workers and the attempt completer alike.
 */
public final class DatabaseUnavailable {

    /**
     * SQLSTATEs of a server that is going away, not there yet, or out of connection slots: admin_shutdown,
     * crash_shutdown, cannot_connect_now ("the database system is starting up"), too_many_connections (also
     * "remaining connection slots are reserved"). Every state of class 08 (connection exception) counts too.
     */
    private static final Set<String> STATES = Set.of("57P01", "57P02", "57P03", "53300");
    /** Deep enough for any wrapping JDBI, Flyway and the driver do; a guard against a cause cycle. */
    private static final int MAX_DEPTH = 32;

    private DatabaseUnavailable() {
    }

    /** True when {@code failure}, or anything in its chain of causes, says the database is unavailable. */
    public static boolean isCauseOf(Throwable failure) {
        return find(failure).isPresent();
    }

    /** The message of whatever in {@code failure}'s causes says the database is unavailable, else its own. */
    public static String describe(Throwable failure) {
        Throwable shown = find(failure).orElse(failure);
        String message = shown.getMessage() == null ? shown.getClass().getName() : shown.getMessage();
        // The driver's messages can run over several lines (hints, positions); one line is enough in a log.
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }

    private static Optional<Throwable> find(Throwable failure) {
        Throwable current = failure;
        for (int depth = 0; current != null && depth < MAX_DEPTH; depth++) {
            if (current instanceof PoolExhaustedException) {
                // Every pooled connection stayed busy for maxWaitForConnection: a shortage, not a fault.
                return Optional.of(current);
            }
            if (current instanceof SQLException sql && unavailable(sql.getSQLState())) {
                return Optional.of(current);
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return Optional.empty();
    }

    private static boolean unavailable(String state) {
        return state != null && (state.startsWith("08") || STATES.contains(state));
    }
}
