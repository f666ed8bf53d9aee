package io.mergesynthesis.bench;

import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The database every measurement shares: an embedded PostgreSQL started in a temporary directory (the default),
 * or the server named by {@code DATABASE_URL}. It hands out plain JDBC connections under the identities the
 * benchmark needs and empties the product's tables between measurements.
 */
final class BenchDatabase implements AutoCloseable {

    static final String NAME = "merge_synthesis_bench";

    /**
     * Settings for the embedded server. A durable database by default, as in production: WAL written, fsync
     * on, and every commit waits for its WAL to reach the disk ({@code synchronous_commit} on), so that figures
     * which depend on commit latency are those of a real deployment. {@code --synchronous-commit-off} lets
     * commits return before the flush, for comparing with earlier runs made that way. Checkpoints are spread
     * out so that a shared or slow disk does not decide the figures. Every value is printed in the report.
     */
    private static Map<String, String> embeddedSettings(boolean synchronousCommit, boolean statements) {
        Map<String, String> settings = orderedMap(
                "listen_addresses", "localhost",
                "max_connections", "200",
                "shared_buffers", "512MB",
                "effective_cache_size", "4GB",
                "work_mem", "16MB",
                "maintenance_work_mem", "256MB",
                "fsync", "on",
                "synchronous_commit", synchronousCommit ? "on" : "off",
                "wal_level", "minimal",
                "max_wal_senders", "0",
                "max_wal_size", "8GB",
                "checkpoint_timeout", "30min",
                "random_page_cost", "1.1");
        if (statements) {
            // Loaded only on request: tracking every statement costs the server a little on each one.
            settings.put("shared_preload_libraries", "pg_stat_statements");
        }
        return settings;
    }

    private static final List<String> REPORTED_SETTINGS = List.of("server_version", "max_connections",
            "shared_buffers", "effective_cache_size", "work_mem", "synchronous_commit", "fsync", "wal_level",
            "max_wal_size", "checkpoint_timeout", "autovacuum", "jit", "random_page_cost",
            "shared_preload_libraries");

    private final EmbeddedDatabase embedded;
    private final String url;
    private final String user;
    private final String password;

    private BenchDatabase(EmbeddedDatabase embedded, String url, String user, String password) {
        this.embedded = embedded;
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Starts the embedded server, or connects to {@code options.databaseUrl()} when it is set. */
    static BenchDatabase open(Options options) {
        if (options.databaseUrl() != null) {
            return new BenchDatabase(null, options.databaseUrl(), options.databaseUser(),
                    options.databasePassword());
        }
        try {
            // No data directory of ours: the server's temporary one goes away when it stops.
            EmbeddedDatabase pg = EmbeddedDatabase.builder()
                    .databaseName(NAME)
                    .startupWait(Duration.ofSeconds(60))
                    .settings(embeddedSettings(options.synchronousCommit(), options.statements()))
                    .start();
            return new BenchDatabase(pg, pg.jdbcUrl(), EmbeddedDatabase.SUPERUSER, "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
        }
    }

    String url() {
        return url;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    boolean embedded() {
        return embedded != null;
    }

    /**
     * The process id of the embedded server's postmaster (the parent of every server process), from its
     * {@code postmaster.pid}; empty for a {@code DATABASE_URL} server, whose processes may be elsewhere.
     */
    java.util.OptionalLong postmasterPid() {
        if (embedded == null) {
            return java.util.OptionalLong.empty();
        }
        try {
            String first = Files.readAllLines(embedded.dataDirectory().resolve("postmaster.pid")).get(0);
            return java.util.OptionalLong.of(Long.parseLong(first.trim()));
        } catch (IOException | RuntimeException e) {
            return java.util.OptionalLong.empty();
        }
    }

    /** A connection as the login role, in autocommit. */
    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /**
     * A connection that reads every org's rows for the rest of its session, the way the pool's claim does
     * (the BYPASSRLS sweep role with {@code row_security = off}): for seeding and for watching progress.
     */
    Connection connectAsSweep() throws SQLException {
        Connection c = connect();
        try (Statement s = c.createStatement()) {
            s.execute("SET ROLE " + ScopedTransactions.SWEEP_ROLE);
            s.execute("SET row_security = off");
        }
        return c;
    }

    /**
     * A connection to the server's maintenance database, so that watching the server's statistics does not
     * itself count as traffic on the benchmark database. Falls back to the benchmark database.
     */
    Connection connectMaintenance() throws SQLException {
        String maintenance = url.replaceFirst("/[^/?]+(\\?|$)", "/postgres$1");
        try {
            return DriverManager.getConnection(maintenance, user, password);
        } catch (SQLException e) {
            return connect();
        }
    }

    /** The name of the database the product runs on, as {@code pg_stat_*} views report it. */
    String databaseName() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_database()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Refuses to empty a database of the user's that already holds conflicts, unless told to. */
    void guardAgainstWiping(boolean wipe) throws SQLException {
        if (embedded() || wipe) {
            return;
        }
        try (Connection c = connectAsSweep(); Statement s = c.createStatement()) {
            ResultSet rs = s.executeQuery("SELECT to_regclass('policy_conflicts') IS NOT NULL");
            rs.next();
            if (!rs.getBoolean(1)) {
                return;
            }
            rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM policy_conflicts)");
            rs.next();
            if (rs.getBoolean(1)) {
                throw new IllegalStateException("DATABASE_URL names a database that already holds conflicts; "
                        + "the benchmark empties it between measurements. Pass --wipe if that is intended.");
            }
        } catch (SQLException e) {
            // Before the first migration the sweep role may not exist yet: nothing to protect then.
            if (!"42704".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    private static final String DEADLOCK = "40P01";

    /** Empties the product's tables and the peer's, so that each measurement starts from the same state. */
    void reset() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            // Every table that references policy_conflicts or api_tokens goes with it, or TRUNCATE refuses; and the
            // month totals and usage kept of the ledger, which its TRUNCATE does not take away (the conflicts'
            // counts and search keys go with them by their own trigger). A replica still running folds its usage
            // rows now and then, and its fold and the TRUNCATE may each wait for a lock the other holds; the
            // server then cancels one of them, and when it is the TRUNCATE, it is sent again.
            for (int attempt = 1; ; attempt++) {
                try {
                    s.execute("TRUNCATE conflict_events, llm_usage_events, synthesis_attempt_history, "
                            + "policy_conflicts, web_sessions, api_tokens, org_names, org_spend_by_month, "
                            + "org_usage_by_month");
                    break;
                } catch (SQLException e) {
                    if (!DEADLOCK.equals(e.getSQLState()) || attempt == 3) {
                        throw e;
                    }
                }
            }
            s.execute("DROP TABLE IF EXISTS scheduled_tasks");
            // The token buckets the replicas share describe the last stand-in's key: each scenario starts a fresh
            // one, whose buckets its first answer states (schema 30; absent on an older schema), and the holds of
            // the replicas that called it go with them (schema 34).
            s.execute("DO $$ BEGIN IF to_regclass('shared_token_buckets') IS NOT NULL THEN "
                    + "TRUNCATE shared_token_buckets CASCADE; END IF; END $$");
        }
        settle();
    }

    /** Brings statistics and the visibility map up to date and writes dirty pages out before a timed run. */
    void settle() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("VACUUM ANALYZE policy_conflicts");
            s.execute("VACUUM ANALYZE conflict_events");
            try {
                s.execute("CHECKPOINT");
            } catch (SQLException e) {
                // Not allowed for every login on a server of one's own; only a source of noise then.
            }
        }
    }

    /** The server's version and the settings that shape the figures. */
    Map<String, Object> describe() throws SQLException {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("kind", embedded() ? "embedded PostgreSQL in a temporary directory" : "DATABASE_URL");
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String name : REPORTED_SETTINGS) {
                try (ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "', true)")) {
                    rs.next();
                    out.put(name, rs.getString(1));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (embedded == null) {
            return;
        }
        try {
            embedded.close();
        } catch (RuntimeException e) {
            System.err.println("warning: the embedded PostgreSQL did not stop cleanly: " + e.getMessage());
        }
    }

    private static Map<String, String> orderedMap(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }
}
