package io.mergesynthesis.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.AuthValueFactoryProvider;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.service.admin.AdminToolsGuard;
import io.mergesynthesis.service.auth.BearerHeaderFilter;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.JsonUnauthorizedHandler;
import io.mergesynthesis.service.auth.RoleCheck;
import io.mergesynthesis.service.auth.TokenAuthenticator;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.cli.DatabaseCommand;
import io.mergesynthesis.service.cli.ExportEventsCommand;
import io.mergesynthesis.service.cli.RequeueCommand;
import io.mergesynthesis.service.cli.StandInProviderCommand;
import io.mergesynthesis.service.cli.TokenCommand;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.counts.ConflictCountUpkeep;
import io.mergesynthesis.service.counts.CountFolding;
import io.mergesynthesis.service.db.ConnectionRoutes;
import io.mergesynthesis.service.db.DatabaseWait;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.SharedTokenBuckets;
import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.health.HealthCheckGauges;
import io.mergesynthesis.service.health.ReadinessServlet;
import io.mergesynthesis.service.health.ServerMetrics;
import io.mergesynthesis.service.http.BodyLimitFilter;
import io.mergesynthesis.service.http.BodyTextCheck;
import io.mergesynthesis.service.http.DatabaseUnavailableMapper;
import io.mergesynthesis.service.http.ExactHeaderValues;
import io.mergesynthesis.service.http.HttpsRequests;
import io.mergesynthesis.service.http.JsonErrors;
import io.mergesynthesis.service.http.JsonLimitMapper;
import io.mergesynthesis.service.http.MalformedJsonMapper;
import io.mergesynthesis.service.http.ParameterTextFilter;
import io.mergesynthesis.service.http.UndecodableTextMapper;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.ingest.ConflictIntake;
import io.mergesynthesis.service.ingest.ReportParser;
import io.mergesynthesis.service.ingest.SampleConflicts;
import io.mergesynthesis.service.logging.LogRedaction;
import io.mergesynthesis.service.logging.RedactedRequestLog;
import io.mergesynthesis.service.logging.SecretRedactor;
import io.mergesynthesis.service.models.ConfiguredModels;
import io.mergesynthesis.service.models.ConfiguredRouter;
import io.mergesynthesis.service.models.LlmSynthesizerProvider;
import io.mergesynthesis.service.models.OrgModelCheck;
import io.mergesynthesis.service.operator.BatchAdmin;
import io.mergesynthesis.service.operator.FailedList;
import io.mergesynthesis.service.operator.Fleet;
import io.mergesynthesis.service.operator.FleetActivity;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.operator.ProviderShares;
import io.mergesynthesis.service.operator.Replicas;
import io.mergesynthesis.service.operator.SignedInPeople;
import io.mergesynthesis.service.operator.TokenAdmin;
import io.mergesynthesis.service.replica.HeartbeatWriter;
import io.mergesynthesis.service.replica.ReplicaReadings;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.resources.BatchResource;
import io.mergesynthesis.service.resources.ConflictResource;
import io.mergesynthesis.service.resources.EventResource;
import io.mergesynthesis.service.resources.OpenApiResource;
import io.mergesynthesis.service.resources.OrgNameResource;
import io.mergesynthesis.service.resources.OrgSynthesisResource;
import io.mergesynthesis.service.resources.UsageResource;
import io.mergesynthesis.service.retention.PartitionUpkeep;
import io.mergesynthesis.service.retention.PartitionUpkeepSchedule;
import io.mergesynthesis.service.session.WebSessions;
import io.mergesynthesis.service.settings.OrgSettings;
import io.mergesynthesis.service.signin.SignInWithProvider;
import io.mergesynthesis.service.tracing.TraceExport;
import io.mergesynthesis.service.usage.MonthlyUsage;
import io.mergesynthesis.service.web.WebInbox;
import io.mergesynthesis.service.worker.config.WorkerWiring;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.servlet.jakarta.exporter.MetricsServlet;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the service by hand: database, auth, API, worker pool, metrics. */
public class MergeSynthesisApplication extends Application<MergeSynthesisConfiguration> {

    /** How long a replica's router remembers an org's model override before reading it again. */
    private static final java.time.Duration ORG_SETTINGS_REMEMBERED = java.time.Duration.ofSeconds(5);
    private static final String STUB_SERVES_NO_MODEL = "cannot be an org's model here: this deployment writes "
            + "suggested merges with the stub synthesizer (synthesis.synthesizer: stub), which serves no model; "
            + "keep null (the default), or run the replicas with synthesis.synthesizer: llm to serve the "
            + "configured models";

    private static final Logger LOG = LoggerFactory.getLogger(MergeSynthesisApplication.class);

    public static void main(String[] args) throws Exception {
        new MergeSynthesisApplication().run(args);
    }

    @Override
    public String getName() {
        return "merge-synthesis";
    }

    @Override
    public void initialize(Bootstrap<MergeSynthesisConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        // Timestamps on the wire are ISO-8601 text, as in the ingest format, never epoch numbers.
        bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        // Money and prices as written decimals (0.0021), never in exponent form.
        bootstrap.getObjectMapper().enable(SerializationFeature.WRITE_BIGDECIMAL_AS_PLAIN);
        bootstrap.addCommand(new TokenCommand());
        bootstrap.addCommand(new DatabaseCommand());
        bootstrap.addCommand(new ExportEventsCommand());
        bootstrap.addCommand(new RequeueCommand());
        bootstrap.addCommand(new StandInProviderCommand());
    }

    @Override
    public void run(MergeSynthesisConfiguration config, Environment environment) {
        // First, before anything logs: no logger at any level, nor the request log, writes a token or a key.
        SecretRedactor redactor = SecretRedactor.withSecrets(java.util.stream.Stream.concat(
                config.getLlm().getProviders().values().stream().map(ProviderSettings::getApiKey),
                java.util.stream.Stream.of(config.getWeb().getOidc().getClientSecret())).toList());
        LogRedaction.install(redactor);
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    RedactedRequestLog.install(server, redactor);
                }
            }
        });
        AdminToolsGuard adminTools = config.getAdminTools().build();
        environment.admin().addFilter("admin-tools", adminTools)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        LOG.info(adminTools.enabled() ? "Admin tools (/tasks, /threads, /pprof) are on, behind their token"
                : "Admin tools (/tasks, /threads, /pprof) are off; set ADMIN_TOOLS_TOKEN_SHA256 to turn them on");

        ConnectionRoutes routes = config.connectionRoutes();
        Optional<EmbeddedDatabase> embedded = Databases.prepare(config.getDatabase(),
                config.getEmbeddedDatabase());
        routes.applyTo(config.getDatabase());
        embedded.ifPresent(db -> environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() throws Exception {
                db.close();
            }
        }));
        // Wait for the database here rather than exit: replicas often start with it, or while it restarts.
        DatabaseWait wait = DatabaseWait.upTo(config.getDatabaseStartupWait().toJavaDuration());
        if (config.isMigrateOnStart()) {
            wait.run("apply the migrations", () -> Databases.migrate(config.getDatabase(), config.getMigration()));
        } else {
            wait.run("connect to the database", () -> Databases.ping(config.getDatabase()));
        }
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "postgresql");
        Jdbi jdbi = new JdbiFactory().build(environment, config.getDatabase(), dataSource, "postgresql")
                .installPlugin(new PostgresPlugin());
        ScopedTransactions transactions = new ScopedTransactions(jdbi, dataSource::getConnection);
        ObjectMapper json = environment.getObjectMapper();
        CollectorRegistry metrics = new CollectorRegistry(true);

        Optional<SignInWithProvider> signIn = config.getWeb().signInWithProvider();
        TokenAuthenticator authenticator = new TokenAuthenticator(
                config.getAuth().build(new TokenStore(transactions), Clock.systemUTC()),
                token -> signIn.flatMap(SignInWithProvider::machines).flatMap(machines -> machines.apply(token)));
        environment.jersey().register(new AuthDynamicFeature(new BearerHeaderFilter.Builder()
                .setAuthenticator(authenticator)
                .setAuthorizer(authenticator)
                .setPrefix("Bearer")
                .setRealm("merge-synthesis")
                .setUnauthorizedHandler(new JsonUnauthorizedHandler())
                .buildAuthFilter()));
        environment.jersey().register(new RoleCheck());
        environment.jersey().register(new AuthValueFactoryProvider.Binder<>(Caller.class));
        environment.lifecycle().addEventListener(new ExactHeaderValues());
        JsonErrors.install(environment);
        // Before every other filter and page: whether the request came over https decides cookies and HSTS.
        environment.servlets().addFilter("https-requests", new HttpsRequests(config.getWeb().proxies(),
                        config.getWeb().getHstsMaxAge().toSeconds()))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
        environment.jersey().register(new BodyLimitFilter(config.getIngest().getMaxBodySize().toBytes(),
                config.getIngest().getMaxBatchSize()));
        environment.jersey().register(new ParameterTextFilter());
        environment.jersey().register(new BodyTextCheck());
        environment.jersey().register(new MalformedJsonMapper());
        environment.jersey().register(new DatabaseUnavailableMapper(Clock.systemUTC()));
        environment.jersey().register(new JsonLimitMapper());
        environment.jersey().register(new UndecodableTextMapper());

        ConflictIntake intake = new ConflictIntake(transactions, json);
        InboxReads inboxReads = new InboxReads(transactions);
        ConflictInbox inbox = new ConflictInbox(transactions, json);
        ConflictRequeue requeue = new ConflictRequeue(transactions);
        environment.jersey().register(new ConflictResource(intake,
                new ReportParser(config.getIngest().getMaxBatchSize()), inboxReads, inbox, requeue));

        // The stub writes every merge here whatever an org's model says: choosing one is refused, not ignored. A
        // replica without workers runs no synthesizer and judges a model by its llm: block alone.
        ModelCatalog models = config.getSynthesis().isEnabled() && config.getSynthesis().stubSynthesizer()
                ? ConfiguredModels.of(config.getLlm()).servingNoModel(STUB_SERVES_NO_MODEL)
                : ConfiguredModels.of(config.getLlm());
        // The stub, or a synthesizer of one's own with no model configured, keeps the stub's fixed route and
        // ignores org models.
        boolean orgModelsServed = !config.getSynthesis().stubSynthesizer() && models.primary() != null;
        Router router = !orgModelsServed ? new StubRouter()
                : new ConfiguredRouter(models, org -> transactions.inOrg(org,
                        handle -> OrgSynthesisSettings.of(handle, org).model()), ORG_SETTINGS_REMEMBERED);
        OrgModelCheck orgModels = orgModelsServed ? OrgModelCheck.of(models) : OrgModelCheck.NONE;
        Consumer<UUID> settingsChanged = org -> {
            if (router instanceof ConfiguredRouter configured) {
                configured.forget(org);
            }
        };
        OrgSettings orgSettings = new OrgSettings(transactions, models, settingsChanged);
        MonthlyUsage usage = new MonthlyUsage(transactions);
        environment.jersey().register(new OrgSynthesisResource(orgSettings));
        environment.jersey().register(new UsageResource(usage, models));

        OrgDirectory orgDirectory = new OrgDirectory(transactions, Clock.systemUTC());
        environment.jersey().register(new OrgNameResource(orgDirectory));
        BatchAdmin providerBatches = new BatchAdmin(transactions);
        environment.jersey().register(new BatchResource(providerBatches));
        environment.jersey().register(new EventResource(new EventExport(transactions)));
        environment.jersey().register(new OpenApiResource());
        WebInbox.install(environment, new WebInbox.UseCases(new WebSessions(transactions, Clock.systemUTC(),
                        config.getWeb().getSessionIdle().toJavaDuration(),
                        config.getWeb().getSessionMax().toJavaDuration()),
                new TokenStore(transactions), inboxReads, inbox, requeue, usage, new Fleet(transactions),
                orgSettings), new WebInbox.OperatorUseCases(orgDirectory, new FailedList(transactions),
                new Replicas(transactions), new ProviderShares(transactions), new FleetActivity(transactions),
                new TokenAdmin(new TokenStore(transactions)), new SignedInPeople(transactions), providerBatches),
                new WebInbox.SignIn(signIn,
                        config.getWeb().isTokenSignIn(), config.getWeb().publicBase()), json, Clock.systemUTC(),
                config.getLlm().getEscalateBelow());

        environment.admin().addServlet("prometheus", new MetricsServlet(metrics)).addMapping("/metrics");
        environment.admin().addServlet("ready", new ReadinessServlet(environment.healthChecks())).addMapping("/ready");
        new HealthCheckGauges(environment.healthChecks()).register(metrics);
        ServerMetrics.register(metrics, environment.metrics());
        // Managed before the worker, so stopped after it: the last attempts' spans are flushed.
        TraceExport traces = TraceExport.of(System.getenv());
        environment.lifecycle().manage(traces);
        ReplicaReadings readings = WorkerWiring.install(environment, new WorkerWiring.Service(config.getSynthesis(),
                        config.getDatabase(), routes.listenUrl(config.getDatabase()), transactions, metrics,
                        Clock.systemUTC(), Ticker.SYSTEM, traces.telemetry()),
                new LlmSynthesizerProvider(config.getLlm(), metrics,
                        config.getSynthesis().getInvokeTimeout().toJavaDuration(), Ticker.SYSTEM, traces.telemetry(),
                        new SharedTokenBuckets(transactions.jdbi(),
                                config.getSynthesis().getInvokeTimeout().toJavaDuration())),
                router, orgModels, config.getLlm());
        environment.lifecycle().manage(new PartitionUpkeepSchedule(PartitionUpkeep.of(transactions,
                config.getRetention()), config.getRetention().getUpkeepInterval().toJavaDuration()));
        environment.lifecycle().manage(new HeartbeatWriter(transactions, readings, hostName(),
                Optional.ofNullable(getClass().getPackage().getImplementationVersion()).orElse("dev"),
                config.getHeartbeatInterval().toJavaDuration(), Clock.systemUTC()));
        environment.lifecycle().manage(new CountFolding(new ConflictCountUpkeep(transactions),
                config.getCountFoldInterval().toJavaDuration(), Clock.systemUTC()));

        if (embedded.isPresent() && config.isLoadSamples()) {
            Set<UUID> sampleOrgs = SampleConflicts.loadIfEmpty(transactions, intake, json);
            sampleOrgs.forEach(org -> LOG.info("To read the samples, mint an inbox token: java -jar "
                    + "service/target/merge-synthesis.jar token create --role org_admin --org {} config.yml", org));
        }
        environment.lifecycle().addServerLifecycleListener(server -> {
            for (Connector connector : server.getConnectors()) {
                if (connector instanceof NetworkConnector network) {
                    String host = network.getHost() == null ? "0.0.0.0" : network.getHost();
                    LOG.info("merge-synthesis listening on http://{}:{} ({})", host, network.getLocalPort(),
                            connector.getName());
                }
            }
        });
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown";
        }
    }
}
