package io.mergesynthesis.service.testing;

import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import java.sql.DriverManager;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/**
 * A real PostgreSQL for tests: one embedded server per test JVM, migrated once into a template database,
 * and a fresh copy of that template for every caller of {@link #fresh()}, so tests never see each other's rows.
 *
 * <p>Tests log in as the server's superuser on purpose: the service must hold row-level security through its
 * role switch even then.
 */
public final class TestDatabase {

    private static final String TEMPLATE = "merge_synthesis_template";
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static EmbeddedDatabase server;

    private final String url;

    private TestDatabase(String url) {
        this.url = url;
    }

    /** A new, migrated, empty database. */
    public static synchronized TestDatabase fresh() {
        EmbeddedDatabase pg = server();
        String name = "test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        execute(pg, "CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
        return new TestDatabase(pg.jdbcUrl(name));
    }

    /**
     * A new database migrated only up to {@code version} (say "1"), as a database of one's own looks before
     * {@code db migrate} brings it to this build.
     */
    public static synchronized TestDatabase migratedTo(String version) {
        EmbeddedDatabase pg = server();
        String name = "test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        execute(pg, "CREATE DATABASE " + name);
        TestDatabase database = new TestDatabase(pg.jdbcUrl(name));
        Flyway.configure().dataSource(database.url(), database.user(), "").locations("classpath:db/migration")
                .target(version).load().migrate();
        return database;
    }

    /**
     * A new database with no schema, owned by a new login {@code owner} that holds the service's roles with the
     * right to grant them (as an administrator sets up a migration login), and a new login {@code runtime} that
     * holds nothing: the service's roles come to it from the migration. Names are cluster-wide, so each call
     * makes its own.
     */
    public static synchronized SeparateLogins withSeparateLogins() {
        EmbeddedDatabase pg = server();
        int n = COUNTER.incrementAndGet();
        String name = "test_" + ProcessHandle.current().pid() + "_" + n;
        String owner = "owner_" + ProcessHandle.current().pid() + "_" + n;
        String runtime = "runtime_" + ProcessHandle.current().pid() + "_" + n;
        execute(pg, "CREATE ROLE " + owner + " LOGIN");
        execute(pg, "GRANT merge_synthesis_tenant, merge_synthesis_sweep, merge_synthesis_runtime TO " + owner
                + " WITH ADMIN OPTION");
        execute(pg, "CREATE ROLE " + runtime + " LOGIN");
        execute(pg, "CREATE DATABASE " + name + " OWNER " + owner);
        return new SeparateLogins(new TestDatabase(pg.jdbcUrl(name)), owner, runtime);
    }

    /** A database with no schema yet, the login that is to migrate it and own it, and the one to run on it. */
    public record SeparateLogins(TestDatabase database, String owner, String runtime) {

        /** Scoped transactions logged in as {@code login}. */
        public ScopedTransactions transactionsAs(String login) {
            return ScopedTransactions.on(() -> DriverManager.getConnection(database.url(), login, ""));
        }

        /** A JDBI logged in as {@code login}, with no role switch. */
        public Jdbi jdbiAs(String login) {
            return Jdbi.create(database.url(), login, "").installPlugin(new PostgresPlugin());
        }
    }

    public String url() {
        return url;
    }

    public String user() {
        return EmbeddedDatabase.SUPERUSER;
    }

    /** A data source factory pointing at this database, for code that builds its own pool. */
    public DataSourceFactory dataSourceFactory() {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass("org.postgresql.Driver");
        factory.setUrl(url);
        factory.setUser(user());
        factory.setPassword("");
        return factory;
    }

    /** A JDBI logged in as the superuser: set roles and scopes explicitly, or go through {@link #transactions()}. */
    public Jdbi jdbi() {
        return Jdbi.create(url, user(), "").installPlugin(new PostgresPlugin());
    }

    public ScopedTransactions transactions() {
        return ScopedTransactions.on(() -> DriverManager.getConnection(url, user(), ""));
    }

    private static EmbeddedDatabase server() {
        if (server == null) {
            try {
                // A temporary server for this JVM, with durability traded for speed.
                server = EmbeddedDatabase.builder()
                        .databaseName(TEMPLATE)
                        .setting("max_connections", "400")
                        .setting("fsync", "off")
                        .setting("synchronous_commit", "off")
                        .setting("full_page_writes", "off")
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the test PostgreSQL", e);
            }
            DataSourceFactory template = new DataSourceFactory();
            server.configure(template);
            Databases.migrate(template);
        }
        return server;
    }

    private static void execute(EmbeddedDatabase pg, String sql) {
        try {
            pg.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test database setup failed: " + sql, e);
        }
    }
}
