package io.mergesynthesis.service.worker;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.service.worker.config.WorkerWiring;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.StubSynthesizer;
import io.prometheus.client.CollectorRegistry;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;

/**
 * One test database and any number of pools on it, each pool with a connection pool, metrics registry and
 * owner name of its own, as separate replicas would have. Closing it stops every pool.
 */
public final class WorkerFixture implements AutoCloseable {

    public static final Clock FIXED = Clock.fixed(Instant.parse("2026-11-20T12:00:00Z"), ZoneOffset.UTC);
    /**
     * An org rule denying the target's family over a member rule allowing the target itself; the org rule's
     * owner is filled in by SQL with the row's org, as ingest would require of it.
     */
    static String rules(String target) {
        int dot = target.indexOf('.');
        String family = dot > 0 ? target.substring(0, dot) + ".*" : "*";
        return """
                [{"policy_id": "p1", "scope": "org", "scope_id": null, "effect": "deny", "target": "%s"},
                 {"policy_id": "p2", "scope": "member", "scope_id": "m1", "effect": "allow", "target": "%s"}]"""
                .formatted(family, target);
    }

    final TestDatabase database = TestDatabase.fresh();
    /** Logged in as the superuser, which row-level security does not hold: for setup and checks only. */
    public final Jdbi admin = database.jdbi();
    private final List<ManagedDataSource> dataSources = new ArrayList<>();
    private final List<SynthesisPool> pools = new ArrayList<>();

    /** Settings fit for tests: short timeouts, fast polling, tiny backoff. Override what a test is about. */
    public static Settings settings(String owner) {
        return new Settings(owner);
    }

    public static final class Settings {
        String owner;
        int workers = 4;
        Duration invokeTimeout = Duration.ofSeconds(2);
        int maxAttempts = 3;
        Duration baseBackoff = Duration.ofMillis(10);
        Duration leaseDuration = Duration.ofSeconds(10);
        Duration pollInterval = Duration.ofMillis(100);
        boolean listen = false;
        Duration shutdownGrace = Duration.ofSeconds(10);
        long trackerSize = 1_000;
        int leasesAheadPerWorker = PoolSettings.DEFAULT_LEASES_AHEAD_PER_WORKER;

        Settings(String owner) {
            this.owner = owner;
        }

        public Settings workers(int value) {
            workers = value;
            return this;
        }

        Settings invokeTimeout(Duration value) {
            invokeTimeout = value;
            return this;
        }

        Settings maxAttempts(int value) {
            maxAttempts = value;
            return this;
        }

        Settings baseBackoff(Duration value) {
            baseBackoff = value;
            return this;
        }

        Settings leaseDuration(Duration value) {
            leaseDuration = value;
            return this;
        }

        Settings pollInterval(Duration value) {
            pollInterval = value;
            return this;
        }

        Settings listen(boolean value) {
            listen = value;
            return this;
        }

        PoolSettings build() {
            return new PoolSettings(owner, workers, invokeTimeout, maxAttempts, baseBackoff, leaseDuration,
                    pollInterval, listen, shutdownGrace, trackerSize, leasesAheadPerWorker);
        }
    }

    /** A replica: its pool (not started), its metrics, and its own connection pool. */
    public record Replica(SynthesisPool pool, CollectorRegistry registry, ScopedTransactions transactions) {

        double attempts(Outcome outcome) {
            Double value = registry.getSampleValue("synthesis_attempts_total", new String[] {"outcome"},
                    new String[] {outcome.label()});
            return value == null ? Double.NaN : value;
        }

        double failures(FailureReason reason) {
            Double value = registry.getSampleValue("synthesis_failures_total", new String[] {"reason"},
                    new String[] {reason.label()});
            return value == null ? Double.NaN : value;
        }
    }

    public Replica replica(Settings settings, MergeSynthesizer synthesizer) {
        return replica(settings, synthesizer, builder -> builder);
    }

    /** A replica whose models come from {@code router}. */
    public Replica replica(Settings settings, MergeSynthesizer synthesizer, Router router) {
        return replica(settings, synthesizer, router, builder -> builder);
    }

    public Replica replica(Settings settings, MergeSynthesizer synthesizer,
                           UnaryOperator<WorkerWiring.PoolBuilder> adjust) {
        return replica(settings, synthesizer, new StubRouter(), adjust);
    }

    /** A replica whose builder the test may adjust (ticker, retry log) before it is built. */
    public Replica replica(Settings settings, MergeSynthesizer synthesizer, Router router,
                           UnaryOperator<WorkerWiring.PoolBuilder> adjust) {
        ScopedTransactions transactions = transactionsOnOwnPool(settings.owner, settings.workers + 2);
        CollectorRegistry registry = new CollectorRegistry(true);
        WorkerWiring.PoolBuilder builder = WorkerWiring.pool(settings.build(), transactions, synthesizer,
                        router, new SynthesisMetrics(registry))
                .clock(FIXED)
                .listenConnection(() -> DriverManager.getConnection(database.url(), database.user(), ""));
        SynthesisPool pool = adjust.apply(builder).build();
        pools.add(pool);
        return new Replica(pool, registry, transactions);
    }

    /** Scoped transactions on a connection pool of their own, as a replica has. */
    public ScopedTransactions transactionsOnOwnPool(String name, int maxConnections) {
        DataSourceFactory factory = database.dataSourceFactory();
        factory.setMinSize(1);
        factory.setInitialSize(1);
        factory.setMaxSize(maxConnections);
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), name);
        dataSources.add(dataSource);
        return ScopedTransactions.on(dataSource::getConnection);
    }

    public static MergeSynthesizer stub() {
        return new StubSynthesizer(FIXED);
    }

    /** Inserts {@code count} pending conflicts spread over three orgs, in one statement. */
    void insertConflicts(int count, String target) {
        admin.useHandle(handle -> handle.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                        SELECT gen_random_uuid(), o.org, :prefix || i, 'tool_call', :target,
                               jsonb_set(CAST(:rules AS jsonb), '{0,scope_id}', to_jsonb(o.org::text)), 'p1', now()
                        FROM generate_series(1, :count) AS i, LATERAL (SELECT md5('org-' || (i % 3))::uuid AS org) o""")
                .bind("prefix", target + "-" + UUID.randomUUID() + "-")
                .bind("target", target)
                .bind("rules", rules(target))
                .bind("count", count)
                .execute());
    }

    /** Inserts one pending conflict and returns its id. */
    public UUID insertConflict(String target) {
        return insertConflict(target, "org-1");
    }

    /** Inserts one pending conflict of the org named by {@code orgSeed} (hashed into a UUID). */
    public UUID insertConflict(String target, String orgSeed) {
        UUID id = UUID.randomUUID();
        admin.useHandle(handle -> handle.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        VALUES (:id, md5(:orgSeed)::uuid, :key, 'tool_call', :target,
                                jsonb_set(CAST(:rules AS jsonb), '{0,scope_id}', to_jsonb(md5(:orgSeed)::uuid::text)),
                                'p1', now(), clock_timestamp())""")
                .bind("id", id)
                .bind("orgSeed", orgSeed)
                .bind("key", id.toString())
                .bind("target", target)
                .bind("rules", rules(target))
                .execute());
        return id;
    }

    public long count(String sqlCondition) {
        return admin.withHandle(handle -> handle.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE " + sqlCondition).mapTo(Long.class).one());
    }

    public long events(String type) {
        return admin.withHandle(handle -> handle.createQuery(
                "SELECT count(*) FROM conflict_events WHERE event_type = :type").bind("type", type)
                .mapTo(Long.class).one());
    }

    public String column(UUID id, String column) {
        return admin.withHandle(handle -> handle.createQuery(
                "SELECT " + column + "::text FROM policy_conflicts WHERE id = :id").bind("id", id)
                .mapTo(String.class).findOne().orElse(null));
    }

    @Override
    public void close() throws Exception {
        for (SynthesisPool pool : pools) {
            pool.stop();
        }
        for (ManagedDataSource dataSource : dataSources) {
            dataSource.stop();
        }
    }
}
