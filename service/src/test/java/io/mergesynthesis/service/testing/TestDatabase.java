package io.mergesynthesis.service.testing;

import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
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
    private static EmbeddedPostgres server;

    private final String url;

    private TestDatabase(String url) {
        this.url = url;
    }

    /** A new, migrated, empty database. */
    public static synchronized TestDatabase fresh() {
        EmbeddedPostgres pg = server();
        String name = "test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        execute(pg, "CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
        return new TestDatabase(pg.getJdbcUrl("postgres", name).replace("?user=postgres", ""));
    }

    /**
     * A new database migrated only up to {@code version} (say "1"), as a database of one's own looks before
     * {@code db migrate} brings it to this build.
     */
    public static synchronized TestDatabase migratedTo(String version) {
        EmbeddedPostgres pg = server();
        String name = "test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        execute(pg, "CREATE DATABASE " + name);
        TestDatabase database = new TestDatabase(pg.getJdbcUrl("postgres", name).replace("?user=postgres", ""));
        Flyway.configure().dataSource(database.url(), database.user(), "").locations("classpath:db/migration")
                .target(version).load().migrate();
        return database;
    }

    public String url() {
        return url;
    }

    public String user() {
        return "postgres";
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
        return new ScopedTransactions(jdbi());
    }

    private static EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder()
                        .setServerConfig("max_connections", "400")
                        .setServerConfig("fsync", "off")
                        .setServerConfig("synchronous_commit", "off")
                        .setServerConfig("full_page_writes", "off")
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the test PostgreSQL", e);
            }
            execute(server, "CREATE DATABASE " + TEMPLATE);
            DataSourceFactory template = new DataSourceFactory();
            template.setUrl(server.getJdbcUrl("postgres", TEMPLATE).replace("?user=postgres", ""));
            template.setUser("postgres");
            template.setPassword("");
            Databases.migrate(template);
        }
        return server;
    }

    private static void execute(EmbeddedPostgres pg, String sql) {
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test database setup failed: " + sql, e);
        }
    }
}
