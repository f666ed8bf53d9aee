package io.mergesynthesis.service.db;

import io.dropwizard.db.DataSourceFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.DriverManager;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.ConnectionFactory;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;

/** Getting from a configuration to a migrated database, the same way for the server and every command. */
public final class Databases {

    private Databases() {
    }

    /**
     * Starts (or attaches to) the embedded PostgreSQL when no URL is configured and points {@code database} at
     * it. The caller closes what is returned when it is done.
     */
    public static Optional<EmbeddedDatabase> prepare(DataSourceFactory database, EmbeddedDatabaseFactory settings) {
        if (!EmbeddedDatabaseFactory.selectedBy(database)) {
            return Optional.empty();
        }
        try {
            EmbeddedDatabase embedded = EmbeddedDatabase.startOrAttach(settings);
            embedded.configure(database);
            return Optional.of(embedded);
        } catch (IOException e) {
            throw new UncheckedIOException(NO_EMBEDDED, e);
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException(NO_EMBEDDED + ": " + e, e);
        }
    }

    // The container image carries no embedded PostgreSQL: an unset DATABASE_URL lands here and must say so.
    private static final String NO_EMBEDDED = "cannot start the embedded PostgreSQL, which is used because "
            + "DATABASE_URL is not set; set DATABASE_URL to a JDBC URL of your PostgreSQL (the container image "
            + "carries no embedded one)";

    /**
     * Applies every pending migration from {@code db/migration} and says how many it applied. Safe to run from
     * several replicas at once.
     */
    public static int migrate(DataSourceFactory database) {
        return flyway(database, null).migrate().migrationsExecuted;
    }

    /**
     * As {@link #migrate(DataSourceFactory)}, as {@code login} when one is configured, which then grants the
     * service's roles to the runtime login of {@code runtime}.
     */
    public static int migrate(DataSourceFactory runtime, MigrationLogin login) {
        return flyway(login.migrating(runtime), login.runtimeLogin(runtime).orElse(null)).migrate()
                .migrationsExecuted;
    }

    /** The versions of the migrations this build has and the database has not applied yet, oldest first. */
    public static List<String> pending(DataSourceFactory database) {
        return Arrays.stream(flyway(database, null).info().pending())
                .map(migration -> "V" + migration.getVersion() + " (" + migration.getDescription() + ")")
                .toList();
    }

    private static Flyway flyway(DataSourceFactory database, String runtimeLogin) {
        return Flyway.configure()
                .dataSource(database.getUrl(), database.getUser(), database.getPassword())
                .locations("classpath:db/migration")
                .callbacks(new ServiceRoles(runtimeLogin))
                .load();
    }

    /** Opens one connection and runs a trivial query: throws unless the database takes work. */
    public static void ping(DataSourceFactory database) {
        forCommand(database).useHandle(handle -> handle.createQuery("SELECT 1").mapTo(Integer.class).one());
    }

    /** A JDBI on plain, unpooled connections, for short-lived commands. */
    public static Jdbi forCommand(DataSourceFactory database) {
        return Jdbi.create(commandConnections(database)).installPlugin(new PostgresPlugin());
    }

    /** Scoped transactions on plain, unpooled connections, for short-lived commands. */
    public static ScopedTransactions transactionsForCommand(DataSourceFactory database) {
        return ScopedTransactions.on(commandConnections(database));
    }

    private static ConnectionFactory commandConnections(DataSourceFactory database) {
        // An unset password (trust or peer authentication) is left out rather than passed as null.
        Properties login = new Properties();
        if (database.getUser() != null) {
            login.setProperty("user", database.getUser());
        }
        if (database.getPassword() != null) {
            login.setProperty("password", database.getPassword());
        }
        String url = database.getUrl();
        return () -> DriverManager.getConnection(url, login);
    }
}
