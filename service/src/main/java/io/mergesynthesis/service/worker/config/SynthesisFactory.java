package io.mergesynthesis.service.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.synthesis.OrgModelCheck;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.drill.FaultsFactory;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.service.worker.store.ConflictLeases;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubSynthesizer;
import io.prometheus.client.CollectorRegistry;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.DriverManager;
import java.time.Clock;
import java.util.Properties;
import java.util.UUID;

/** The worker pool's settings ({@code synthesis.*}) and how a pool is built from them. */
@LeaseOutlastsInvoke
public class SynthesisFactory {

    /** How idle workers learn of new conflicts. */
    public enum Notifications {
        /** LISTEN on a dedicated connection, with polling as the fallback. */
        LISTEN,
        /** Polling alone, for a transaction-mode connection pooler that cannot carry LISTEN. */
        POLL
    }

    private boolean enabled = true;

    @Min(1)
    private int workers = 4;

    @NotNull
    private Duration invokeTimeout = Duration.seconds(30);

    @Min(1)
    private int maxAttempts = 3;

    @NotNull
    private Duration baseBackoff = Duration.seconds(1);

    @NotNull
    private Duration leaseDuration = Duration.seconds(60);

    @NotEmpty
    private String synthesizer = "stub";

    @NotNull
    private Duration pollInterval = Duration.seconds(5);

    @NotNull
    private Notifications notifications = Notifications.LISTEN;

    @NotNull
    private Duration shutdownGrace = Duration.seconds(30);

    @Min(1)
    private long attemptTrackerSize = 100_000;

    /** How often conflicts waiting for a budget are looked at again (a new month, a budget changed by hand). */
    @NotNull
    private Duration budgetRecheck = Duration.seconds(10);

    @Valid
    @NotNull
    private FaultsFactory faults = new FaultsFactory();

    /**
     * The settings for one pool, checked together.
     *
     * @throws IllegalArgumentException with a message naming the settings at fault
     */
    public PoolSettings settings(String owner) {
        return new PoolSettings(owner, workers, invokeTimeout.toJavaDuration(), maxAttempts,
                baseBackoff.toJavaDuration(), leaseDuration.toJavaDuration(), pollInterval.toJavaDuration(),
                notifications == Notifications.LISTEN, shutdownGrace.toJavaDuration(), attemptTrackerSize);
    }

    /**
     * The configured synthesizer, with fault injection around it if any is configured.
     *
     * @throws IllegalArgumentException naming the available synthesizers when the name is unknown
     */
    public MergeSynthesizer synthesizer(SynthesizerCatalog catalog, Clock clock) {
        return faults.wrap(catalog.create(synthesizer, clock));
    }

    /** True when the configured synthesizer is the deterministic stub, which needs no model routing. */
    public boolean stubSynthesizer() {
        return StubSynthesizer.NAME.equals(synthesizer);
    }

    /**
     * A pool for this replica running {@code synthesizer} (as {@link #synthesizer} made it) with models from
     * {@code router}, which holds back conflicts of orgs whose own model {@code orgModels} says it cannot serve,
     * registering its metrics in {@code registry}. Refuses an unsafe configuration.
     */
    public SynthesisPool build(ScopedTransactions transactions, DataSourceFactory database,
                               MergeSynthesizer synthesizer, Router router, OrgModelCheck orgModels,
                               CollectorRegistry registry, Clock clock) {
        PoolSettings settings = settings(replicaName());
        MergeSynthesizer chosen = faults.journal(synthesizer, settings.owner(), clock);
        SynthesisMetrics metrics = new SynthesisMetrics(registry);
        SynthesisMetrics.registerWaiting(registry, () -> transactions.crossTenant(
                handle -> ConflictLeases.countWaiting(handle, WAITING_CAP)));
        return SynthesisPool.builder(settings, transactions, chosen, metrics)
                .router(router)
                .orgModels(orgModels)
                .clock(clock)
                .listenConnection(() -> DriverManager.getConnection(database.getUrl(), connectionProperties(database)))
                .build();
    }

    /** The pending gauge counts no further than this, so a scrape stays cheap whatever the backlog. */
    static final int WAITING_CAP = 100_000;

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

    @JsonProperty
    public boolean isEnabled() {
        return enabled;
    }

    @JsonProperty
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    @JsonProperty
    public int getWorkers() {
        return workers;
    }

    @JsonProperty
    public void setWorkers(int workers) {
        this.workers = workers;
    }

    @JsonProperty
    public Duration getInvokeTimeout() {
        return invokeTimeout;
    }

    @JsonProperty
    public void setInvokeTimeout(Duration invokeTimeout) {
        this.invokeTimeout = invokeTimeout;
    }

    @JsonProperty
    public int getMaxAttempts() {
        return maxAttempts;
    }

    @JsonProperty
    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    @JsonProperty
    public Duration getBaseBackoff() {
        return baseBackoff;
    }

    @JsonProperty
    public void setBaseBackoff(Duration baseBackoff) {
        this.baseBackoff = baseBackoff;
    }

    @JsonProperty
    public Duration getLeaseDuration() {
        return leaseDuration;
    }

    @JsonProperty
    public void setLeaseDuration(Duration leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    @JsonProperty
    public String getSynthesizer() {
        return synthesizer;
    }

    @JsonProperty
    public void setSynthesizer(String synthesizer) {
        this.synthesizer = synthesizer;
    }

    @JsonProperty
    public Duration getPollInterval() {
        return pollInterval;
    }

    @JsonProperty
    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    @JsonProperty
    public Notifications getNotifications() {
        return notifications;
    }

    @JsonProperty
    public void setNotifications(Notifications notifications) {
        this.notifications = notifications;
    }

    @JsonProperty
    public Duration getShutdownGrace() {
        return shutdownGrace;
    }

    @JsonProperty
    public void setShutdownGrace(Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
    }

    @JsonProperty
    public long getAttemptTrackerSize() {
        return attemptTrackerSize;
    }

    @JsonProperty
    public void setAttemptTrackerSize(long attemptTrackerSize) {
        this.attemptTrackerSize = attemptTrackerSize;
    }

    @JsonProperty
    public Duration getBudgetRecheck() {
        return budgetRecheck;
    }

    @JsonProperty
    public void setBudgetRecheck(Duration budgetRecheck) {
        this.budgetRecheck = budgetRecheck;
    }

    @JsonProperty
    public FaultsFactory getFaults() {
        return faults;
    }

    @JsonProperty
    public void setFaults(FaultsFactory faults) {
        this.faults = faults;
    }
}
