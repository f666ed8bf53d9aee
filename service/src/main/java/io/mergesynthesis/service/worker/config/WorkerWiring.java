package io.mergesynthesis.service.worker.config;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.health.CircuitHealthCheck;
import io.mergesynthesis.service.health.OrgModelsHealthCheck;
import io.mergesynthesis.service.health.PoolHealthCheck;
import io.mergesynthesis.service.health.SynthesizerHealthCheck;
import io.mergesynthesis.service.models.OrgModelCheck;
import io.mergesynthesis.service.replica.ReplicaReadings;
import io.mergesynthesis.service.worker.RetryScheduled;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.attempt.AttemptCompleter;
import io.mergesynthesis.service.worker.attempt.AttemptCounter;
import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.service.worker.attempt.AttemptSpans;
import io.mergesynthesis.service.worker.attempt.MergeMaker;
import io.mergesynthesis.service.worker.attempt.SuggestedMergeJson;
import io.mergesynthesis.service.worker.attempt.SynthesisCall;
import io.mergesynthesis.service.worker.policy.AttemptTracker;
import io.mergesynthesis.service.worker.policy.RetryPolicy;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.service.worker.batch.BatchLane;
import io.mergesynthesis.service.worker.pool.BudgetWaker;
import io.mergesynthesis.service.worker.pool.ClaimHold;
import io.mergesynthesis.service.worker.pool.DedicatedConnection;
import io.mergesynthesis.service.worker.pool.LeaseClaimer;
import io.mergesynthesis.service.worker.pool.LeasesAhead;
import io.mergesynthesis.service.worker.pool.PendingListener;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.service.worker.pool.Waiter;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.service.worker.store.LeaseReader;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.MergeSynthesizerProvider;
import io.mergesynthesis.synthesis.ProviderState;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Ticker;
import io.opentelemetry.api.OpenTelemetry;
import io.prometheus.client.CollectorRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place the worker is wired. {@link #install} puts this replica's worker into the service: the
 * configured synthesizer, the pool, its health checks and the budget waker. {@link #pool} builds every part of a
 * pool (claimer, reader, synthesizer call, merge maker, attempt counter, runner, completer, listener) and hands
 * them to it; the pool builds none itself. Tests build their pools through {@link #pool} as well.
 */
public final class WorkerWiring {

    /**
     * Two writers: merges that arrive while one writes go out with the other at once, not after the first
     * commit. With one writer the workers fell into step (all freed by one commit, all done again together,
     * then all waiting on the next commit) and a drain ran at the pace of commit plus merge; with two, a commit
     * overlaps the next merges. Batches still grow with the load, as each writer takes everything queued, and a
     * writer waits a moment to gather its share of the results of the leases the pool holds, its workers' and
     * those held ahead of them ({@link AttemptCompleter.Gathering}).
     */
    static final int COMPLETER_WRITERS = 2;

    /** The pending gauge counts no further than this, so a scrape stays cheap whatever the backlog. */
    static final int WAITING_CAP = 100_000;

    private static final Logger LOG = LoggerFactory.getLogger(WorkerWiring.class);

    private WorkerWiring() {
    }

    /**
     * What the service hands the worker: its settings and the pieces it shares with the rest of the service.
     *
     * @param listenUrl where the pool's LISTEN connection goes; empty to find new work by polling alone
     * @param telemetry where the attempts' spans go; {@link OpenTelemetry#noop()} when traces are off
     */
    public record Service(SynthesisFactory config, DataSourceFactory database, Optional<String> listenUrl,
                          ScopedTransactions transactions, CollectorRegistry registry, Clock clock, Ticker ticker,
                          OpenTelemetry telemetry) {
    }

    /**
     * The worker pool, when this replica runs one, and its health check either way. The synthesizer is the one
     * {@code synthesis.synthesizer} names, found among those on the classpath and {@code builtIn}, with the
     * drills' faults and call journal around it when they are configured.
     *
     * @param router    the models of this replica; the stub's fixed route when the synthesizer needs no model
     * @param orgModels whether an org's own model can be served here ({@link OrgModelCheck#NONE} with the stub)
     * @param llm       the providers and prices the batch lane sends to, with the LLM synthesizer
     * @return what this replica's heartbeat reports of its pool and providers (nothing busy without a pool)
     * @throws IllegalArgumentException when the configuration is unsafe or names no known synthesizer
     */
    public static ReplicaReadings install(Environment environment, Service service, MergeSynthesizerProvider builtIn,
                               Router router, OrgModelCheck orgModels, LlmSettings llm) {
        SynthesisFactory config = service.config();
        if (!config.isEnabled()) {
            environment.healthChecks().register(PoolHealthCheck.NAME, PoolHealthCheck.disabled());
            return ReplicaReadings.withoutPool(replicaName());
        }
        PoolSettings settings = config.settings(replicaName());
        MergeSynthesizer synthesizer = config.synthesizer(SynthesizerCatalog.discover().with(builtIn),
                settings.owner(), service.clock());
        ScopedTransactions transactions = service.transactions();
        SynthesisMetrics metrics = new SynthesisMetrics(service.registry());
        SynthesisMetrics.registerWaiting(service.registry(), () -> transactions.crossTenant(
                handle -> ConflictLeases.countWaiting(handle, WAITING_CAP)));
        DataSourceFactory database = service.database();
        PoolBuilder builder = pool(settings, transactions, synthesizer, router, metrics)
                .orgModels(orgModels)
                .clock(service.clock())
                .ticker(service.ticker())
                .telemetry(service.telemetry());
        service.listenUrl().ifPresentOrElse(
                url -> builder.listenConnection(() -> DriverManager.getConnection(url, connectionProperties(database))),
                () -> LOG.info("No URL straight to PostgreSQL for LISTEN behind the transaction pooler "
                        + "(DATABASE_LISTEN_URL): new conflicts are found by polling every {}",
                        config.getPollInterval()));
        SynthesisPool pool = builder.build();
        SynthesisMetrics.registerLeasesAhead(service.registry(), pool::leasesHeldAhead);

        environment.healthChecks().register(SynthesizerHealthCheck.NAME, new SynthesizerHealthCheck(synthesizer));
        if (orgModels != OrgModelCheck.NONE) {
            environment.healthChecks().register(OrgModelsHealthCheck.NAME,
                    new OrgModelsHealthCheck(transactions, orgModels));
        }
        for (CircuitStatus circuit : synthesizer.circuits()) {
            environment.healthChecks().register(CircuitHealthCheck.nameFor(circuit.provider()),
                    new CircuitHealthCheck(synthesizer, circuit.provider()));
        }
        environment.lifecycle().manage(pool);
        environment.lifecycle().manage(new BudgetWaker(transactions, config.getBudgetRecheck().toJavaDuration()));
        if (LlmSynthesizer.NAME.equals(config.getSynthesizer()) && BatchLane.hasProviderThatBatches(llm)) {
            // Conflicts of orgs in lane batch go in the provider's batches instead of the pool's calls. A replica
            // with no provider that takes batches runs no batch lane at all, and asks its database nothing for it.
            environment.lifecycle().manage(BatchLane.of(transactions, llm, metrics, service.registry(),
                    settings.owner() + "/batch",
                    RetryPolicy.cappedExponential(settings.baseBackoff(), settings.maxAttempts()),
                    // Wrapped by a drill's faults, the synthesizer repairs no batch answer: those fail their attempt.
                    synthesizer instanceof LlmSynthesizer interactive ? interactive : null, router));
        }
        environment.healthChecks().register(PoolHealthCheck.NAME, PoolHealthCheck.of(pool));
        return readings(pool, synthesizer);
    }

    private static ReplicaReadings readings(SynthesisPool pool, MergeSynthesizer synthesizer) {
        return new ReplicaReadings() {
            @Override
            public String replicaId() {
                return pool.owner();
            }

            @Override
            public int workers() {
                return pool.workerCount();
            }

            @Override
            public int inFlight() {
                return pool.inFlight();
            }

            @Override
            public Instant lastClaim() {
                return pool.lastClaim();
            }

            @Override
            public List<ProviderState> providers() {
                return synthesizer.providerStates();
            }
        };
    }

    /**
     * A pool with {@code settings} running {@code synthesizer} with models from {@code router}; what is not
     * given here has a production default on the returned builder.
     */
    public static PoolBuilder pool(PoolSettings settings, ScopedTransactions transactions,
                                   MergeSynthesizer synthesizer, Router router, SynthesisMetrics metrics) {
        return new PoolBuilder(settings, transactions, synthesizer, router, metrics);
    }

    /** The parts of a pool that may be left to their production defaults. */
    public static final class PoolBuilder {
        private final PoolSettings settings;
        private final ScopedTransactions transactions;
        private final MergeSynthesizer synthesizer;
        private final Router router;
        private final SynthesisMetrics metrics;
        private OrgModelCheck orgModels = OrgModelCheck.NONE;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.SYSTEM;
        private SuggestedMergeJson mergeJson = new SuggestedMergeJson();
        private DedicatedConnection listenConnection;
        private Consumer<RetryScheduled> retries = retry -> { };
        private AttemptSpans spans = AttemptSpans.OFF;

        private PoolBuilder(PoolSettings settings, ScopedTransactions transactions, MergeSynthesizer synthesizer,
                            Router router, SynthesisMetrics metrics) {
            this.settings = Objects.requireNonNull(settings, "settings");
            this.transactions = Objects.requireNonNull(transactions, "transactions");
            this.synthesizer = Objects.requireNonNull(synthesizer, "synthesizer");
            this.router = Objects.requireNonNull(router, "router");
            this.metrics = Objects.requireNonNull(metrics, "metrics");
        }

        /** Whether this replica can serve an org's own model; by default org models are ignored, as the stub does. */
        public PoolBuilder orgModels(OrgModelCheck orgModels) {
            this.orgModels = orgModels;
            return this;
        }

        public PoolBuilder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** What every deadline and pause of the worker is reckoned on. */
        public PoolBuilder ticker(Ticker ticker) {
            this.ticker = ticker;
            return this;
        }

        public PoolBuilder mergeJson(SuggestedMergeJson mergeJson) {
            this.mergeJson = mergeJson;
            return this;
        }

        /** Where the LISTEN connection comes from; without one (or with {@code listen} off) the pool only polls. */
        public PoolBuilder listenConnection(DedicatedConnection opener) {
            this.listenConnection = opener;
            return this;
        }

        /** Told of every retry scheduled, with the backoff written; for logs and tests. */
        public PoolBuilder onRetryScheduled(Consumer<RetryScheduled> retries) {
            this.retries = retries;
            return this;
        }

        /** Where each attempt's span goes (docs/adr/0048); by default nowhere. */
        public PoolBuilder telemetry(OpenTelemetry telemetry) {
            this.spans = new AttemptSpans(telemetry);
            return this;
        }

        public SynthesisPool build() {
            SynthesisCall call = new SynthesisCall(synthesizer, settings.invokeTimeout(),
                    SynthesisPool.threadPrefix(settings));
            AttemptCounter counter = new AttemptCounter(new AttemptTracker(settings.attemptTrackerSize(), clock),
                    RetryPolicy.cappedExponential(settings.baseBackoff(), settings.maxAttempts()), metrics);
            LeasesAhead ahead = new LeasesAhead(settings.workers(), settings.leasesAheadPerWorker());
            AttemptCompleter completer = new AttemptCompleter(transactions, COMPLETER_WRITERS,
                    2 * (settings.workers() + ahead.most()),
                    AttemptCompleter.Gathering.forPool(() -> settings.workers() + ahead.count(), COMPLETER_WRITERS),
                    clock, ticker);
            ClaimHold hold = new ClaimHold(ticker);
            AttemptRunner runner = new AttemptRunner(transactions,
                    new MergeMaker(router, orgModels, call, mergeJson, metrics), counter, completer, metrics, clock,
                    hold, retries, spans, ticker, ahead);
            Waiter waiter = new Waiter();
            LeaseClaimer claimer = new LeaseClaimer(transactions, settings.owner(), settings.leaseDuration(), metrics,
                    ticker);
            Optional<PendingListener> listener = settings.listen() && listenConnection != null
                    ? Optional.of(new PendingListener(listenConnection, waiter, claimer::newConflictsReported, clock))
                    : Optional.empty();
            return new SynthesisPool(settings, new SynthesisPool.Parts(claimer, new LeaseReader(transactions), call,
                    runner, completer, hold, waiter, listener, ahead), clock, ticker);
        }
    }

    private static Properties connectionProperties(DataSourceFactory database) {
        Properties properties = new Properties();
        properties.putAll(database.getProperties());
        if (database.getUser() != null) {
            properties.setProperty("user", database.getUser());
        }
        if (database.getPassword() != null) {
            properties.setProperty("password", database.getPassword());
        }
        properties.setProperty("ApplicationName", "merge-synthesis-listener");
        return properties;
    }

    /** Host name plus a random suffix: readable in the lease_owner column, unique per process start. */
    private static String replicaName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "replica";
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
