package io.mergesynthesis.service.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import org.jdbi.v3.core.ConnectionFactory;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/**
 * Decides which database identity a transaction runs as (with {@link OneTripBatch}, its one-round-trip
 * counterpart).
 *
 * <p>Whatever role the service logs in with (a superuser, in the embedded default), each transaction first
 * switches with {@code SET LOCAL ROLE}: tenant work to {@value #TENANT_ROLE}, which row-level security holds
 * to the org in {@code app.org_id}; the worker's cross-tenant claim to {@value #SWEEP_ROLE} with
 * {@code row_security = off}, which makes a sweep that would silently see a subset of rows fail instead.
 * Every setting is transaction-local, so nothing leaks to the next user of a pooled connection.
 * {@link OneTripBatch} makes the same switches for statements sent together in one round trip.
 *
 * <p>The worker's batches run on plain connections of the same pool ({@link #withConnection},
 * {@link #inPlainTransaction}): a batch uses nothing of JDBI but its connection, and opening a JDBI handle
 * for each (a copy of its configuration, the plugins' set-up) cost a draining replica a share of its Java time
 * worth saving (figures: docs/performance.md, ADR 0029).
 */
public final class ScopedTransactions {

    public static final String TENANT_ROLE = "merge_synthesis_tenant";
    public static final String SWEEP_ROLE = "merge_synthesis_sweep";

    // The identity switches, each in its own file; OneTripBatch sends the same statements in its batches.
    static final String ENTER_SWEEP = SqlFiles.of(ScopedTransactions.class, "enter_sweep");
    static final String ENTER_TENANT = SqlFiles.of(ScopedTransactions.class, "enter_tenant");
    static final String SCOPE_TO_ORG = SqlFiles.of(ScopedTransactions.class, "scope_to_org");
    static final String LEAVE_TENANT = SqlFiles.of(ScopedTransactions.class, "leave_tenant");
    static final String NO_WAIT_FOR_DISK = SqlFiles.of(ScopedTransactions.class, "no_wait_for_disk");

    /**
     * Must come first in its transaction, before any query takes a snapshot. Kept here rather than in a file of
     * its own: a {@code SET} cannot be explained, and every file is. Transaction-local, unlike the connection's
     * isolation setting, which behind a transaction-pooling proxy would stay on a server connection for others.
     */
    private static final String ONE_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY";

    private final Jdbi jdbi;
    private final ConnectionFactory connections;

    /** @param connections where {@code jdbi} takes its connections from: the same pool, for the plain batches */
    public ScopedTransactions(Jdbi jdbi, ConnectionFactory connections) {
        this.jdbi = jdbi;
        this.connections = connections;
    }

    /** Transactions over {@code connections}, JDBI's with the PostgreSQL plugin, as the service configures it. */
    public static ScopedTransactions on(ConnectionFactory connections) {
        return new ScopedTransactions(Jdbi.create(connections).installPlugin(new PostgresPlugin()), connections);
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    /** Runs {@code work} in one transaction that sees and changes only {@code orgId}'s rows. */
    public <R, X extends Exception> R inOrg(UUID orgId, HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            enterTenant(handle, orgId);
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work}, which only reads, in one transaction that sees only {@code orgId}'s rows, all of them as
     * they stood at its first read: a conflict's state and its history, or a page and its counts, never disagree
     * because a worker committed between two of the statements.
     */
    public <R, X extends Exception> R readInOrg(UUID orgId, HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            handle.execute(ONE_SNAPSHOT);
            enterTenant(handle, orgId);
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work} as the tenant role with no org yet: tenant tables show nothing until
     * {@link #switchOrg} names one. For work that spans orgs one at a time, such as a platform batch ingest.
     */
    public <R, X extends Exception> R asTenant(HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            enterTenant(handle, null);
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work} in one transaction that sees every org's rows: the worker's claim, the pending gauge
     * and platform-wide reads of the event stream.
     */
    public <R, X extends Exception> R crossTenant(HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            handle.createQuery(ENTER_SWEEP)
                    .bind("role", SWEEP_ROLE)
                    .mapTo(String.class)
                    .one();
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work} in one transaction as the login role itself, with no switch: for the upkeep of the monthly
     * partitions ({@link MonthlyPartitions}). The login need not own the schema: the upkeep's functions run as
     * their owner, the login that migrated, and the runtime login may only call them (schema 23).
     */
    public <R, X extends Exception> R asLogin(HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(work);
    }

    /** Work on a plain connection of the pool. */
    @FunctionalInterface
    public interface ConnectionWork<R> {
        R run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of the pool in auto-commit mode, outside any JDBI handle, and gives the
     * connection back.
     *
     * @throws Failed when the connection could not be had or {@code work} threw an {@link SQLException}
     */
    public <R> R withConnection(ConnectionWork<R> work) {
        Connection connection = open();
        try {
            return work.run(connection);
        } catch (SQLException e) {
            throw new Failed(e);
        } finally {
            giveBack(connection, null);
        }
    }

    /**
     * Runs {@code work} in one transaction on a connection of the pool, outside any JDBI handle, and commits
     * it; rolls it back when {@code work} throws. The connection goes back to the pool in auto-commit mode.
     *
     * @throws Failed when the connection could not be had, or {@code work} or the commit threw an
     *     {@link SQLException}
     */
    public <R> R inPlainTransaction(ConnectionWork<R> work) {
        Connection connection = open();
        Throwable failure = null;
        try {
            connection.setAutoCommit(false);
            R result = work.run(connection);
            connection.commit();
            return result;
        } catch (SQLException e) {
            failure = e;
            rollBack(connection, e);
            throw new Failed(e);
        } catch (RuntimeException | Error e) {
            failure = e;
            rollBack(connection, e);
            throw e;
        } finally {
            giveBack(connection, failure);
        }
    }

    /** A plain connection's work failed in the driver: the driver's error is the cause, with its SQLSTATE. */
    public static final class Failed extends RuntimeException {
        public Failed(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }

    private Connection open() {
        try {
            return connections.openConnection();
        } catch (SQLException e) {
            throw new Failed(e);
        }
    }

    private static void rollBack(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Back to the pool, in auto-commit mode as every other user of the pool expects it. */
    private void giveBack(Connection connection, Throwable failure) {
        try {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        } finally {
            try {
                connections.closeConnection(connection);
            } catch (SQLException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /** Points the current tenant transaction at another org. */
    public static void switchOrg(Handle handle, UUID orgId) {
        handle.createQuery(SCOPE_TO_ORG)
                .bind("org", orgId == null ? "" : orgId.toString())
                .mapTo(String.class)
                .one();
    }

    private static void enterTenant(Handle handle, UUID orgId) {
        // One round trip: the role switch and the org scope are both transaction-local settings.
        handle.createQuery(ENTER_TENANT)
                .bind("role", TENANT_ROLE)
                .bind("org", orgId == null ? "" : orgId.toString())
                .mapTo(String.class)
                .one();
    }
}
