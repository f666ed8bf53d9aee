package io.mergesynthesis.service.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.worker.drill.FaultsFactory;
import io.mergesynthesis.service.worker.pool.PoolSettings;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.StubSynthesizer;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Clock;

/** The worker pool's settings ({@code synthesis.*}); {@link WorkerWiring} builds the worker from them. */
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

    /** The most leases per worker held ahead of the workers while merges cost nothing (ADR 0077); 0 for none. */
    private int leasesAheadPerWorker = PoolSettings.DEFAULT_LEASES_AHEAD_PER_WORKER;

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
                notifications == Notifications.LISTEN, shutdownGrace.toJavaDuration(), attemptTrackerSize,
                leasesAheadPerWorker);
    }

    /**
     * The configured synthesizer, with the drills' fault injection and call journal (under {@code replica}'s
     * name) around it when they are configured.
     *
     * @throws IllegalArgumentException naming the available synthesizers when the name is unknown
     */
    public MergeSynthesizer synthesizer(SynthesizerCatalog catalog, String replica, Clock clock) {
        return faults.around(catalog.create(synthesizer, clock), replica, clock);
    }

    /** True when the configured synthesizer is the deterministic stub, which needs no model routing. */
    public boolean stubSynthesizer() {
        return StubSynthesizer.NAME.equals(synthesizer);
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
    public int getLeasesAheadPerWorker() {
        return leasesAheadPerWorker;
    }

    @JsonProperty
    public void setLeasesAheadPerWorker(int leasesAheadPerWorker) {
        this.leasesAheadPerWorker = leasesAheadPerWorker;
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
