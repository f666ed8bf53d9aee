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
