package io.mergesynthesis.service;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.util.Duration;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.service.admin.AdminToolsFactory;
import io.mergesynthesis.service.auth.AuthFactory;
import io.mergesynthesis.service.db.ConnectionRoutes;
import io.mergesynthesis.service.db.EmbeddedDatabaseFactory;
import io.mergesynthesis.service.db.MigrationLogin;
import io.mergesynthesis.service.ingest.IngestFactory;
import io.mergesynthesis.service.retention.RetentionFactory;
import io.mergesynthesis.service.web.WebFactory;
import io.mergesynthesis.service.worker.config.SynthesisFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

public class MergeSynthesisConfiguration extends Configuration {

    /** The {@code url} that selects the embedded PostgreSQL instead of a server of one's own. */
    public static final String EMBEDDED_URL = EmbeddedDatabaseFactory.EMBEDDED_URL;

    /** The database to use; the url {@value #EMBEDDED_URL} starts the embedded PostgreSQL. */
    @Valid
    @NotNull
    private DataSourceFactory database = embeddedByDefault();

    @Valid
    @NotNull
    private EmbeddedDatabaseFactory embeddedDatabase = new EmbeddedDatabaseFactory();

    /** What stands between {@code database.url} and PostgreSQL; see {@link ConnectionRoutes}. */
    @NotNull
    private ConnectionRoutes.Pooler databasePooler = ConnectionRoutes.Pooler.NONE;

    /** A URL straight to PostgreSQL for the worker pool's LISTEN connection; empty: see {@link ConnectionRoutes}. */
    private String databaseListenUrl = "";

    /** Apply pending schema migrations when the server starts (otherwise: {@code db migrate}). */
    private boolean migrateOnStart = true;

    /** A login of its own for the migrations; unset, the runtime login migrates (see {@link MigrationLogin}). */
    @Valid
    @NotNull
    private MigrationLogin migration = new MigrationLogin();

    /**
     * How long a starting server waits for its database (not up yet, restarting, out of connection slots),
     * retrying with backoff, before it gives up; zero gives up at the first failure.
     */
    @NotNull
    private Duration databaseStartupWait = Duration.seconds(60);

    /**
     * How often this replica writes its heartbeat row (docs/adr/0041): the operator's list of replicas calls a
     * replica gone after three silent intervals, and any replica deletes a row silent for ten.
     */
    @NotNull
    private Duration heartbeatInterval = Duration.seconds(5);

    /**
     * How often a replica folds the per-org conflict counts (docs/adr/0042): one replica at a time folds, the others
     * skip their turn. The counts are exact whenever they are read; folding keeps each read to a few rows.
     */
    @NotNull
    private Duration countFoldInterval = Duration.seconds(10);

    /** Load the five sample conflicts when the embedded database holds none yet. */
    private boolean loadSamples = true;

    @Valid
    @NotNull
    private IngestFactory ingest = new IngestFactory();

    @Valid
    @NotNull
    private AuthFactory auth = new AuthFactory();

    /** How the web inbox tells an https visitor, also behind a proxy that terminates TLS. */
    @Valid
    @NotNull
    private WebFactory web = new WebFactory();

    @Valid
    @NotNull
    private SynthesisFactory synthesis = new SynthesisFactory();

    /** The admin port's tasks, /threads and /pprof: off unless a token's hash is set. */
    @Valid
    @NotNull
    private AdminToolsFactory adminTools = new AdminToolsFactory();

    /** How many months of events, ledger and attempt history are kept, and the partitions' upkeep. */
    @Valid
    @NotNull
    private RetentionFactory retention = new RetentionFactory();

    /** The LLM synthesizer's providers, models, prices and route; checked only when it is selected. */
    @NotNull
    private LlmSettings llm = new LlmSettings();

    @JsonProperty
    public RetentionFactory getRetention() {
        return retention;
    }

    @JsonProperty
    public void setRetention(RetentionFactory retention) {
        this.retention = retention;
    }

    @JsonProperty
    public AdminToolsFactory getAdminTools() {
        return adminTools;
    }

    @JsonProperty
    public void setAdminTools(AdminToolsFactory adminTools) {
        this.adminTools = adminTools;
    }

    @JsonProperty
    public LlmSettings getLlm() {
        return llm;
    }

    @JsonProperty
    public void setLlm(LlmSettings llm) {
        this.llm = llm;
    }

    @JsonProperty("database")
    public DataSourceFactory getDatabase() {
        return database;
    }

    @JsonProperty("database")
    public void setDatabase(DataSourceFactory database) {
        this.database = database;
    }

    @JsonProperty
    public ConnectionRoutes.Pooler getDatabasePooler() {
        return databasePooler;
    }

    @JsonProperty
    public void setDatabasePooler(ConnectionRoutes.Pooler databasePooler) {
        this.databasePooler = databasePooler;
    }

    @JsonProperty
    public String getDatabaseListenUrl() {
        return databaseListenUrl;
    }

    @JsonProperty
    public void setDatabaseListenUrl(String databaseListenUrl) {
        this.databaseListenUrl = databaseListenUrl;
    }

    /**
     * The routes of the configured connections.
     *
     * @throws IllegalArgumentException when the listen URL is not a PostgreSQL JDBC URL
     */
    public ConnectionRoutes connectionRoutes() {
        return new ConnectionRoutes(databasePooler, databaseListenUrl);
    }

    @JsonProperty
    public EmbeddedDatabaseFactory getEmbeddedDatabase() {
        return embeddedDatabase;
    }

    @JsonProperty
    public void setEmbeddedDatabase(EmbeddedDatabaseFactory embeddedDatabase) {
        this.embeddedDatabase = embeddedDatabase;
    }

    @JsonProperty
    public boolean isMigrateOnStart() {
        return migrateOnStart;
    }

    @JsonProperty
    public void setMigrateOnStart(boolean migrateOnStart) {
        this.migrateOnStart = migrateOnStart;
    }

    @JsonProperty
    public MigrationLogin getMigration() {
        return migration;
    }

    @JsonProperty
    public void setMigration(MigrationLogin migration) {
        this.migration = migration;
    }

    @JsonProperty
    public Duration getDatabaseStartupWait() {
        return databaseStartupWait;
    }

    @JsonProperty
    public void setDatabaseStartupWait(Duration databaseStartupWait) {
        this.databaseStartupWait = databaseStartupWait;
    }

    @JsonProperty
    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    @JsonProperty
    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    @JsonProperty
    public Duration getCountFoldInterval() {
        return countFoldInterval;
    }

    @JsonProperty
    public void setCountFoldInterval(Duration countFoldInterval) {
        this.countFoldInterval = countFoldInterval;
    }

    @JsonProperty
    public boolean isLoadSamples() {
        return loadSamples;
    }

    @JsonProperty
    public void setLoadSamples(boolean loadSamples) {
        this.loadSamples = loadSamples;
    }

    @JsonProperty
    public IngestFactory getIngest() {
        return ingest;
    }

    @JsonProperty
    public void setIngest(IngestFactory ingest) {
        this.ingest = ingest;
    }

    @JsonProperty
    public AuthFactory getAuth() {
        return auth;
    }

    @JsonProperty
    public void setAuth(AuthFactory auth) {
        this.auth = auth;
    }

    @JsonProperty
    public WebFactory getWeb() {
        return web;
    }

    @JsonProperty
    public void setWeb(WebFactory web) {
        this.web = web;
    }

    @JsonProperty
    public SynthesisFactory getSynthesis() {
        return synthesis;
    }

    @JsonProperty
    public void setSynthesis(SynthesisFactory synthesis) {
        this.synthesis = synthesis;
    }

    private static DataSourceFactory embeddedByDefault() {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass("org.postgresql.Driver");
        factory.setUrl(EMBEDDED_URL);
        return factory;
    }

    /** True when no database URL is configured and the embedded PostgreSQL is to be used. */
    public boolean usesEmbeddedDatabase() {
        return EmbeddedDatabaseFactory.selectedBy(database);
    }
}
