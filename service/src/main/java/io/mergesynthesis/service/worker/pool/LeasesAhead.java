package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.worker.attempt.AttemptRunner;

/**
 * How many leases the pool holds beyond its workers, waiting for a free worker: as many as the workers finish
 * while a finished attempt waits for its store, so that no worker stands idle while the store that frees it and
 * claims its next conflict makes its round trip (Little's law: the workers finish {@code workers / work} a second,
 * and a store takes {@code store}). With a synthesizer that answers in microseconds the workers would otherwise
 * spend most of the time waiting for commits, and every store batch would carry only the few results of the
 * workers' own count.
 *
 * <p>Only merges that cost nothing count. A merge paid for at a provider puts the count back to none until the
 * merges are free again: a replica never has more paid calls in hand than workers, so that a crash while stores
 * are slow loses no more than that (ADR 0077). A paid call also takes a provider's round trip, far longer than a
 * store, so the rule would give next to nothing there anyway. Before the first merge, none are held ahead.
 *
 * <p>The two times are averaged over the last merges, a recent one weighing {@link #WEIGHT}, so that one slow
 * commit or one merge delayed by the garbage collector does not swing the count.
 */
public final class LeasesAhead implements AttemptRunner.Pace {

    /** At most this many leases per worker are held ahead: a crash leaves no more than these to expire. */
    static final int MOST_PER_WORKER = 3;
    /** How much the latest merge weighs in the running averages. */
    static final double WEIGHT = 0.2;
    /** The shortest attempt reckoned with, so that a merge timed at nothing does not divide by zero. */
    private static final double LEAST_WORK_NANOS = 1_000;

    private final int workers;
    private double workNanos = Double.NaN;
    private double storeNanos = Double.NaN;

    public LeasesAhead(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("a pool has at least one worker, got " + workers);
        }
        this.workers = workers;
    }

    /** The most leases ever held ahead of {@code workers} workers. */
    public static int most(int workers) {
        return workers * MOST_PER_WORKER;
    }

    /** The most this pool ever holds ahead. */
    public int most() {
        return most(workers);
    }

    @Override
    public synchronized void merged(long workNanos, long storeNanos, boolean paid) {
        if (paid) {
            this.workNanos = Double.NaN;
            this.storeNanos = Double.NaN;
            return;
        }
        this.workNanos = averaged(this.workNanos, Math.max(LEAST_WORK_NANOS, workNanos));
        this.storeNanos = averaged(this.storeNanos, Math.max(0, storeNanos));
    }

    /** How many leases to hold ahead of the workers now: between none and {@link #most()}. */
    public synchronized int count() {
        if (Double.isNaN(workNanos)) {
            return 0;
        }
        double finishedDuringAStore = workers * storeNanos / workNanos;
        return (int) Math.min(most(), Math.floor(finishedDuringAStore));
    }

    private static double averaged(double average, double latest) {
        return Double.isNaN(average) ? latest : average + WEIGHT * (latest - average);
    }
}
