package io.mergesynthesis.service.worker;

import io.mergesynthesis.llm.MergeCheckRefusals;
import io.mergesynthesis.synthesis.MergeFinding;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import java.time.Duration;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The pool's Prometheus metrics. Label values come only from {@link Outcome}, {@link FailureReason} and the
 * merge check's finding codes, so there are exactly 4 + 8 + 19 labelled series; every one exists from the start,
 * at zero.
 */
public final class SynthesisMetrics {

    /** 1 ms doubling 17 times: the last bound is 65.536 s, past any sane invoke timeout. */
    static final double FIRST_BUCKET_SECONDS = 0.001;
    static final int BUCKET_COUNT = 17;

    private final FixedLabelCounter<Outcome> attempts;
    private final FixedLabelCounter<FailureReason> failures;
    private final Histogram duration;
    private final Gauge inFlight;
    private final Counter leaseRecoveries;
    private final Counter deferrals;
    private final Counter budgetWaits;
    private final MergeCheckRefusals refusals;

    public SynthesisMetrics(CollectorRegistry registry) {
        attempts = new FixedLabelCounter<>("synthesis_attempts_total", "Attempts at writing a suggested merge, by outcome.",
                "outcome", Outcome.class, Outcome::label).register(registry);
        failures = new FixedLabelCounter<>("synthesis_failures_total", "Failed attempts, by reason.",
                "reason", FailureReason.class, FailureReason::label).register(registry);
        duration = Histogram.build("synthesis_duration_seconds",
                        "Time from starting an attempt on a claimed conflict to its outcome.")
                .exponentialBuckets(FIRST_BUCKET_SECONDS, 2, BUCKET_COUNT)
                .register(registry);
        inFlight = Gauge.build("synthesis_in_flight", "Conflicts this replica is working on right now.")
                .register(registry);
        leaseRecoveries = Counter.build("synthesis_lease_recoveries_total",
                        "Conflicts claimed after an earlier lease on them expired (its holder stopped or stalled).")
                .register(registry);
        deferrals = Counter.build("synthesis_deferrals_total",
                        "Conflicts handed back uncounted because the provider asked to wait, the replica was at its "
                        + "concurrency limit towards it, or the lease was too short for a call.")
                .register(registry);
        budgetWaits = Counter.build("synthesis_budget_waits_total",
                        "Conflicts set to wait because their org's month-to-date spend reached its monthly budget.")
                .register(registry);
        // Shared with the LLM synthesizer when it reports into the same registry: one counter, two places refusing.
        refusals = MergeCheckRefusals.in(registry);
    }

    /**
     * Reports how many conflicts wait for synthesis, asking {@code waiting} on each scrape. Only one replica
     * per process should register this; it is left out of the constructor so tests can build many pools.
     */
    public static void registerWaiting(CollectorRegistry registry, LongSupplier waiting) {
        registerAsked(registry, "synthesis_pending_conflicts",
                "Conflicts pending or in progress in the database (counted up to a cap).", waiting::getAsLong);
    }

    /**
     * Reports how many leases the pool holds ahead of its workers, waiting for a free one, asking {@code ahead} on
     * each scrape (ADR 0077). Registered once per process, as {@link #registerWaiting} is.
     */
    public static void registerLeasesAhead(CollectorRegistry registry, IntSupplier ahead) {
        registerAsked(registry, "synthesis_leases_ahead", "Leases this replica holds ahead of its workers, waiting "
                + "for a free one (only while merges cost nothing and take less than their store).", ahead::getAsInt);
    }

    /** A gauge without labels whose value is asked of {@code value} on each scrape. */
    private static void registerAsked(CollectorRegistry registry, String name, String help, DoubleSupplier value) {
        Gauge.build(name, help).register(registry).setChild(new Gauge.Child() {
            @Override
            public double get() {
                return value.getAsDouble();
            }
        });
    }

    public void attempted(Outcome outcome, Duration took) {
        attempts.inc(outcome);
        duration.observe(took.toNanos() / 1e9);
    }

    public void failed(FailureReason reason) {
        failures.inc(reason);
    }

    public void started() {
        inFlight.inc();
    }

    public void finished() {
        inFlight.dec();
    }

    public void deferred() {
        deferrals.inc();
    }

    /** A synthesizer's merge the merge check refused before it could be stored. */
    public void refused(List<MergeFinding> findings) {
        refusals.refused(findings);
    }

    public void waitedForBudget() {
        budgetWaits.inc();
    }

    public void leaseRecovered() {
        leaseRecoveries.inc();
    }
}
