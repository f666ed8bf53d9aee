package io.mergesynthesis.service.db;

import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;

/**
 * Loads a statement from its own {@code .sql} file beside the class that runs it, where JDBI's SQL objects keep
 * theirs: {@code of(ConflictLeases.class, "claim")} reads
 * {@code io/mergesynthesis/service/worker/store/ConflictLeases/claim.sql}. One file holds one complete statement
 * in JDBI's {@code :name} form, without a closing {@code ;}, so that a reader sees the whole of it in one place.
 * Comments are for the reader and are not sent.
 *
 * <p>A line {@code \ir other.sql} (psql's "include relative") is replaced by that file of the same folder,
 * indented as the line is. It is there for a piece that several statements must carry inside themselves so that
 * each stays one round trip, such as the ledger rows written with every end of a lease. An included file is
 * itself a whole statement, so it is checked like the others; it may not include in turn.
 *
 * <p>Load a statement once, into a constant: the driver's statement cache and the one-trip batches' texts are
 * keyed by the very string.
 */
public final class SqlFiles {

    private static final ClasspathSqlLocator LOCATOR = ClasspathSqlLocator.removingComments();
    private static final Pattern INCLUDE = Pattern.compile("(?m)^([ \\t]*)\\\\ir[ \\t]+([a-z0-9_]+\\.sql)[ \\t]*$");

    private SqlFiles() {
    }

    /**
     * The statement {@code name} of {@code owner}, with its includes expanded.
     *
     * @throws IllegalArgumentException when the file (or a file it includes) is missing, or an included file
     *     includes another
     */
    public static String of(Class<?> owner, String name) {
        String folder = owner.getName().replace('.', '/') + "/";
        String text = read(folder + name + ".sql");
        StringBuilder expanded = new StringBuilder();
        Matcher include = INCLUDE.matcher(text);
        while (include.find()) {
            String piece = read(folder + include.group(2));
            if (INCLUDE.matcher(piece).find()) {
                throw new IllegalArgumentException(include.group(2) + ", included by " + name
                        + ".sql, includes another file: one level only, so each piece reads whole");
            }
            include.appendReplacement(expanded, Matcher.quoteReplacement(indent(piece, include.group(1))));
        }
        include.appendTail(expanded);
        return expanded.toString().strip();
    }

    /**
     * Reads with the thread's interrupt set aside: the locator's parser reads through an interruptible channel, so
     * an interrupt would fail the read, and with it the initialisation of the class whose constant it fills, for
     * the rest of the process. The interrupt is set again once the file is read.
     */
    private static String read(String path) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return LOCATOR.getResource(SqlFiles.class.getClassLoader(), path).strip();
                } catch (UncheckedIOException e) {
                    if (!(e.getCause() instanceof ClosedByInterruptException)) {
                        throw e;
                    }
                    interrupted = true;
                    Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String indent(String piece, String indentation) {
        return indentation + piece.replace("\n", "\n" + indentation);
    }
}
