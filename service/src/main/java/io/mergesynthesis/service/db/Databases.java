package io.mergesynthesis.service.db;

import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/** Getting from a configuration to a migrated database, the same way for the server and every command. */
public final class Databases {

    private Databases() {
    }

    /**
     * Starts (or attaches to) the embedded PostgreSQL when no URL is configured and points the configuration
     * at it. The caller closes what is returned when it is done.
     */
    public static Optional<EmbeddedDatabase> prepare(MergeSynthesisConfiguration config) {
        if (!config.usesEmbeddedDatabase()) {
            return Optional.empty();
        }
        try {
            EmbeddedDatabase embedded = EmbeddedDatabase.startOrAttach(config.getEmbeddedDatabase());
            embedded.configure(config.getDatabase());
            return Optional.of(embedded);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
        }
    }

    /** Applies every pending migration from {@code db/migration}. Safe to run from several replicas at once. */
    public static void migrate(DataSourceFactory database) {
        Flyway.configure()
                .dataSource(database.getUrl(), database.getUser(), database.getPassword())
                .locations("classpath:db/migration")
                .load()
                .migrate();
    }

    /** Opens one connection and runs a trivial query: throws unless the database takes work. */
    public static void ping(DataSourceFactory database) {
        forCommand(database).useHandle(handle -> handle.createQuery("SELECT 1").mapTo(Integer.class).one());
    }

    /** A JDBI on a plain, unpooled data source, for short-lived commands. */
    public static Jdbi forCommand(DataSourceFactory database) {
        // An unset password (trust or peer authentication) is left out rather than passed as null.
        Properties login = new Properties();
        if (database.getUser() != null) {
            login.setProperty("user", database.getUser());
        }
        if (database.getPassword() != null) {
            login.setProperty("password", database.getPassword());
        }
        return Jdbi.create(database.getUrl(), login).installPlugin(new PostgresPlugin());
    }
}
