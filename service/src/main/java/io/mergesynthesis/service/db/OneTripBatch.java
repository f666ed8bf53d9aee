package io.mergesynthesis.service.db;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;
import org.jdbi.v3.core.statement.SqlParser;
import org.postgresql.PGConnection;

/**
 * Several statements sent to PostgreSQL as one multi-statement text, so that they cost one round trip and one
 * commit however many there are. The driver sends every statement of such a text before the protocol's Sync,
 * and PostgreSQL runs everything before a Sync in one implicit transaction: the statements commit together or
 * not at all, and transaction-local settings ({@code role}, {@code app.org_id}, {@code row_security}) hold from
 * the statement that sets them to the end of the batch and no further.
 *
 * <p>A tenant batch ({@link #tenant()}) runs as {@value ScopedTransactions#TENANT_ROLE} and sets
 * {@code app.org_id} right before each statement to the org that statement names, so that row-level security
 * holds every statement to its own org. A cross-tenant batch ({@link #crossTenant()}) runs as
 * {@value ScopedTransactions#SWEEP_ROLE} with {@code row_security = off}, as
 * {@link ScopedTransactions#crossTenant} does.
 *
 * <p>Statements are written with JDBI's {@code :name} parameters, each statement binding its own values. The
 * batch needs a connection in auto-commit mode (an open transaction would keep it from committing on its own),
 * so it takes one from the pool rather than joining a JDBI transaction.
 *
 * <p>A batch is the worker's hot path, run for every claim, read-back and store, so it is kept lean: it runs on
 * the driver's own connection beneath the pool's proxies (which would otherwise reflect every call on the
 * statement and its results), and the text of each shape of batch (which statements, in which order) is
 * assembled once and then reused as the same string, which the driver finds in its statement cache without
 * hashing or comparing several kilobytes again.
 */
public final class OneTripBatch {

    private static final SqlParser PARSER = new ColonPrefixSqlParser();
    private static final Pattern SAVEPOINT_NAME = Pattern.compile("[a-z_]+");
    /**
     * Batch texts by the statements they are made of. The worker's batches take a few dozen shapes (how many
     * stores, with or without a claim); the bound only keeps an unforeseen caller from growing it for ever.
     */
    private static final Cache<List<String>, String> TEXTS = Caffeine.newBuilder().maximumSize(1_000).build();
    private static final String NO_ORG = "";

    /** Reads one statement's rows into what the caller wants of them. */
    @FunctionalInterface
    public interface RowsReader<T> {
        T read(ResultSet rows) throws SQLException;
    }

    /** Where the result of one statement lands once the batch has run. */
    public static final class Result<T> {
        private T value;
        private boolean set;
        private final List<Consumer<T>> then = new ArrayList<>();

        public T get() {
            if (!set) {
                throw new IllegalStateException("the batch has not run yet");
            }
            return value;
        }

        /** A result made from this one by {@code mapping}, once the batch has read it. */
        public <R> Result<R> map(Function<? super T, ? extends R> mapping) {
            Result<R> mapped = new Result<>();
            if (set) {
                mapped.set(mapping.apply(value));
            } else {
                then.add(read -> mapped.set(mapping.apply(read)));
            }
            return mapped;
        }

        private void set(Object value) {
            @SuppressWarnings("unchecked")
            T typed = (T) value;
            this.value = typed;
            this.set = true;
            then.forEach(next -> next.accept(typed));
        }
    }

    /** One statement of the text: its positional SQL, its values in order, and what to do with its result. */
    private record Part(String sql, List<Object> values, RowsReader<?> reader, Result<?> result) {
    }

    private boolean tenant;
    private boolean commitLast;
    private final List<Part> parts = new ArrayList<>();
    /** The tenant batch's opening statement while no statement follows it: the first scope is set in it. */
    private Part enterAwaitingOrg;

    private OneTripBatch(boolean tenant) {
        this.tenant = tenant;
    }

    /** A batch whose every statement runs under row-level security, scoped to the org given with it. */
    public static OneTripBatch tenant() {
        OneTripBatch batch = new OneTripBatch(true);
        batch.enterAwaitingOrg = batch.append(enterTenant(NO_ORG));
        return batch;
    }

    /** A batch that sees every org's rows (the worker's claim), failing rather than filtering if it could not. */
    public static OneTripBatch crossTenant() {
        OneTripBatch batch = new OneTripBatch(false);
        batch.add(ScopedTransactions.ENTER_SWEEP, Map.of("role", ScopedTransactions.SWEEP_ROLE), null, null);
        return batch;
    }

    /**
     * Turns a tenant batch cross-tenant for the statements added after this: the sweep role, row-level security
     * off, no org. For a claim sent in the same round trip as the tenant statements before it.
     */
    public OneTripBatch crossTenantFromHere() {
        if (!tenant) {
            throw new IllegalStateException("the batch is cross-tenant already");
        }
        add(ScopedTransactions.LEAVE_TENANT, Map.of("role", ScopedTransactions.SWEEP_ROLE), null, null);
        tenant = false;
        return this;
    }

    /**
     * Lets the batch's commit return before its WAL reaches the disk ({@code synchronous_commit} off for this
     * transaction alone). The commit is visible to every other session at once and reaches the disk within a
     * few WAL writer rounds; only a crash of the database server in between can lose it. For writes that cost
     * nothing to lose, such as a claim, which is then simply made again: never for a stored merge. A later
     * durable commit on the server flushes this one's WAL with its own, as the WAL is written in order.
     */
    public OneTripBatch withoutWaitingForDisk() {
        add(ScopedTransactions.NO_WAIT_FOR_DISK, Map.of(), null, null);
        return this;
    }

    /** Adds a statement returning rows, read by {@code reader}, in a tenant batch under {@code orgId}'s scope. */
    public <T> Result<T> query(UUID orgId, String sql, Map<String, ?> params, RowsReader<T> reader) {
        scopeTo(orgId);
        return add(sql, params, reader, new Result<>());
    }

    /** Adds a statement whose result is the number of rows it changed, under {@code orgId}'s scope. */
    public Result<Integer> update(UUID orgId, String sql, Map<String, ?> params) {
        scopeTo(orgId);
        return add(sql, params, null, new Result<>());
    }

    /** Adds a statement returning rows to a cross-tenant batch. */
    public <T> Result<T> query(String sql, Map<String, ?> params, RowsReader<T> reader) {
        if (tenant) {
            throw new IllegalStateException("a tenant batch scopes every statement to an org: name one");
        }
        return add(sql, params, reader, new Result<>());
    }

    /**
     * Runs the batch on a connection of its own from {@code transactions}' pool: one round trip, one commit.
     *
     * @throws Failed when a statement failed; nothing of the batch was then committed
     */
    public void run(ScopedTransactions transactions) {
        transactions.withConnection(connection -> {
            run(connection);
            return null;
        });
    }

    /**
     * Runs the batch on a plain {@code connection} with auto-commit on: one round trip, one commit. Also for a
     * caller with no pool of ours, such as the benchmark's ceiling, which sends the pool's batches as the pool
     * does.
     *
     * @throws Failed when a statement failed; nothing of the batch was then committed
     */
    public void run(Connection connection) {
        try {
            run(connection, true);
        } catch (SQLException e) {
            throw new Failed(parts.size(), e);
        }
    }

    /**
     * Runs the batch as one round trip inside the transaction {@code connection} has open, committing nothing:
     * for a caller whose next statements depend on what this batch returns and must commit with it. The
     * settings the batch makes (role, org scope, row security) last until that transaction ends; a later batch
     * in it sets its own.
     *
     * @throws Failed when a statement failed; the caller's transaction is then aborted (or, behind
     *     {@link #savepointFirst}, only what followed the savepoint)
     */
    public void runWithin(Connection connection) {
        try {
            run(connection, false);
        } catch (SQLException e) {
            throw new Failed(parts.size(), e);
        }
    }

    /**
     * Opens the batch with a savepoint, so that a caller running it inside its transaction
     * ({@link #runWithin}) can undo the batch alone, settings included, with {@code ROLLBACK TO SAVEPOINT name},
     * without a round trip of its own to set the savepoint.
     */
    public OneTripBatch savepointFirst(String name) {
        if (!SAVEPOINT_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a savepoint name of lower-case letters and '_': " + name);
        }
        parts.add(0, new Part("SAVEPOINT " + name, List.of(), null, null));
        return this;
    }

    /**
     * Ends the batch with {@code COMMIT}, for a batch run with {@link #runWithin} as the last work of its
     * transaction: the commit travels with the batch instead of costing a round trip of its own, and the
     * caller's {@code commit()} afterwards finds no transaction open (the driver then sends nothing). When a
     * statement fails, the server skips the rest of the batch, the {@code COMMIT} with it, and the transaction
     * stays open for the caller to mend ({@code ROLLBACK TO SAVEPOINT}) and commit, or to roll back.
     */
    public OneTripBatch commitLast() {
        commitLast = true;
        return this;
    }

    /** A batch that failed as a whole: the driver's error is the cause, so its SQLSTATE can be looked at. */
    public static final class Failed extends RuntimeException {
        private Failed(int statements, SQLException cause) {
            super("a batch of " + statements + " statements failed and was rolled back: " + cause.getMessage(),
                    cause);
        }
    }

    private void run(Connection connection, boolean ownTransaction) throws SQLException {
        if (ownTransaction && !connection.getAutoCommit()) {
            throw new IllegalStateException("a one-trip batch commits on its own; it cannot run inside an open "
                    + "transaction");
        }
        if (!ownTransaction && connection.getAutoCommit()) {
            throw new IllegalStateException("runWithin needs an open transaction to run in");
        }
        if (ownTransaction && commitLast) {
            throw new IllegalStateException("a batch that commits on its own has no COMMIT to add");
        }
        try (PreparedStatement statement = physical(connection).prepareStatement(text())) {
            int index = 1;
            for (Part part : parts) {
                for (Object value : part.values()) {
                    bind(statement, index++, value);
                }
            }
            boolean rows = statement.execute();
            for (Part part : parts) {
                if (rows) {
                    try (ResultSet resultSet = statement.getResultSet()) {
                        if (part.result() != null) {
                            part.result().set(part.reader().read(resultSet));
                        }
                    }
                } else if (part.result() != null) {
                    part.result().set(statement.getUpdateCount());
                }
                rows = statement.getMoreResults();
            }
        }
    }

    private String text() {
        List<String> shape = new ArrayList<>(parts.size() + 1);
        for (Part part : parts) {
            shape.add(part.sql());
        }
        if (commitLast) {
            // No part of its own: a COMMIT returns no result for the loop in run() to hand out.
            shape.add("COMMIT");
        }
        return TEXTS.get(shape, statements -> String.join(";\n", statements) + ";\n");
    }

    /** The driver's connection beneath a pool's proxies, or {@code connection} itself when it is not wrapped. */
    private static Connection physical(Connection connection) throws SQLException {
        return connection.isWrapperFor(PGConnection.class)
                ? (Connection) connection.unwrap(PGConnection.class)
                : connection;
    }

    /**
     * Scopes the statements added next to {@code orgId}. Right after the batch enters the tenant role, the org
     * is set by that same statement: one statement fewer per batch, and still set before any statement that
     * reads or writes a row.
     */
    private void scopeTo(UUID orgId) {
        if (!tenant) {
            throw new IllegalStateException("a cross-tenant batch has no org scope");
        }
        String org = orgId == null ? NO_ORG : orgId.toString();
        int last = parts.size() - 1;
        if (enterAwaitingOrg != null && parts.get(last) == enterAwaitingOrg) {
            parts.set(last, enterTenant(org));
            enterAwaitingOrg = null;
            return;
        }
        add(ScopedTransactions.SCOPE_TO_ORG, Map.of("org", org), null, null);
    }

    /** The statement that enters the tenant role, scoped to {@code org} (or none). */
    private static Part enterTenant(String org) {
        return part(ScopedTransactions.ENTER_TENANT, Map.of("role", ScopedTransactions.TENANT_ROLE, "org", org), null, null);
    }

    private <T> Result<T> add(String sql, Map<String, ?> params, RowsReader<?> reader, Result<T> result) {
        append(part(sql, params, reader, result));
        return result;
    }

    private Part append(Part part) {
        parts.add(part);
        return part;
    }

    private static Part part(String sql, Map<String, ?> params, RowsReader<?> reader, Result<?> result) {
        if (sql.indexOf(';') >= 0) {
            throw new IllegalArgumentException("one statement at a time, without ';': " + sql);
        }
        ParsedSql parsed = PARSER.parse(sql, null);
        List<Object> values = new ArrayList<>();
        for (String name : parsed.getParameters().getParameterNames()) {
            if (!params.containsKey(name)) {
                throw new IllegalArgumentException("no value for :" + name + " in " + sql);
            }
            values.add(params.get(name));
        }
        return new Part(parsed.getSql(), values, reader, result);
    }

    private static void bind(PreparedStatement statement, int index, Object value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.OTHER);
        } else if (value instanceof String s) {
            statement.setString(index, s);
        } else if (value instanceof Integer i) {
            statement.setInt(index, i);
        } else if (value instanceof Long l) {
            statement.setLong(index, l);
        } else if (value instanceof Double d) {
            statement.setDouble(index, d);
        } else if (value instanceof UUID u) {
            statement.setObject(index, u);
        } else {
            throw new IllegalArgumentException("cannot bind a " + value.getClass().getName() + " as a parameter");
        }
    }
}
