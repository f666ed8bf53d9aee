package io.mergesynthesis.service.db;

import io.dropwizard.db.DataSourceFactory;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which URL each kind of connection takes when {@code DATABASE_URL} may lead through a connection pooler.
 *
 * <p>Behind a pooler in transaction mode (PgBouncer's {@code pool_mode = transaction}) every transaction may run on
 * a different server connection. Two things of a session then break: statements prepared on the server (the
 * driver names them after a few executions and finds them missing, or already taken, on the next server
 * connection), and LISTEN (the server connection that listens goes back to the pooler's pool and its
 * notifications reach nobody). So the pooled URL gets {@code prepareThreshold=0}, and the pool's listener takes
 * a URL straight to PostgreSQL when one is given, or is left out, the pool then finding work by polling.
 *
 * @param pooler    what stands between {@code DATABASE_URL} and PostgreSQL
 * @param listenUrl a URL straight to PostgreSQL for the listener; blank for none
 */
public record ConnectionRoutes(Pooler pooler, String listenUrl) {

    /** What {@code DATABASE_URL} leads to. */
    public enum Pooler {
        /** PostgreSQL itself, or a pooler in session mode: a connection is a session. */
        NONE,
        /** A pooler in transaction mode: only a transaction is sure to run on one server connection. */
        TRANSACTION
    }

    private static final String JDBC_PREFIX = "jdbc:postgresql:";
    private static final Pattern PREPARE_THRESHOLD = Pattern.compile("[?&]prepareThreshold=([^&]*)",
            Pattern.CASE_INSENSITIVE);

    public ConnectionRoutes {
        if (pooler == null) {
            throw new IllegalArgumentException("databasePooler must be none or transaction");
        }
        listenUrl = listenUrl == null ? "" : listenUrl.trim();
        if (!listenUrl.isEmpty() && !listenUrl.startsWith(JDBC_PREFIX)) {
            throw new IllegalArgumentException("databaseListenUrl (DATABASE_LISTEN_URL) must be a PostgreSQL JDBC "
                    + "URL starting with " + JDBC_PREFIX + ", not '" + redacted(listenUrl) + "'");
        }
    }

    /**
     * Makes {@code database}'s URL safe for the pooler: behind a transaction pooler it gains
     * {@code prepareThreshold=0}, so that the driver never names a statement on the server.
     *
     * @throws IllegalArgumentException when the URL asks for server-side prepared statements behind a
     *     transaction pooler
     */
    public void applyTo(DataSourceFactory database) {
        database.setUrl(pooledUrl(database.getUrl()));
    }

    /** {@code url} as connections through the pooler should use it. */
    String pooledUrl(String url) {
        if (pooler != Pooler.TRANSACTION || url == null || !url.startsWith(JDBC_PREFIX)) {
            return url;
        }
        Matcher given = PREPARE_THRESHOLD.matcher(url);
        if (given.find()) {
            if (!given.group(1).trim().equals("0")) {
                throw new IllegalArgumentException("DATABASE_URL sets prepareThreshold=" + given.group(1)
                        + ", but behind a transaction pooler (databasePooler: transaction) statements must not be "
                        + "prepared on the server: use prepareThreshold=0 or leave it out");
            }
            return url;
        }
        return url + (url.indexOf('?') < 0 ? "?" : "&") + "prepareThreshold=0";
    }

    /**
     * Where the pool's LISTEN connection goes: the listen URL when one is given, else {@code database}'s own URL,
     * unless that leads through a transaction pooler, where LISTEN cannot work and the pool polls instead.
     */
    public Optional<String> listenUrl(DataSourceFactory database) {
        if (!listenUrl.isEmpty()) {
            return Optional.of(listenUrl);
        }
        return pooler == Pooler.TRANSACTION ? Optional.empty() : Optional.of(database.getUrl());
    }

    /** A URL for an error message, without anything after a '?', where a password may be written. */
    private static String redacted(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }
}
