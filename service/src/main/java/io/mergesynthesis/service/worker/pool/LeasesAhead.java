package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.worker.attempt.AttemptRunner;

/**
 * How many leases the pool holds beyond its workers, waiting for a free worker: while merges take less than
 * the wait for their store, as many as the workers finish during that wait, so that no worker stands idle while
 * the store that frees it and claims its next conflict makes its round trip (Little's law: the workers finish
 * {@code workers / work} a second, and a store takes {@code store}). With a synthesizer that answers in
 * microseconds the workers would otherwise spend most of the time waiting for commits, and every store batch
 * would carry only the few results of the workers' own count. A merge that takes longer than its store keeps
 * its worker busy most of the time anyway, and is not worth a lease that a crash would leave to expire.
 *
 * <p>Only merges that cost nothing count. An attempt paid for at a provider, merge or failure, puts the count
 * back to none until the merges are free again: a replica never has more paid calls in hand than workers, so
 * that a crash while stores are slow loses no more than that (ADR 0077). A paid call also takes a provider's
 * round trip, far longer than a store, so the rule would give next to nothing there anyway. Before the first
 * merge, none are held ahead.
 *
 * <p>The two times are averaged over the last merges, a recent one weighing {@link #WEIGHT}, so that one slow
 * commit does not swing the count much. One merge a hundred times slower than the last ones (a pause of the
 * garbage collector) can end the lead for the few merges the average takes to come back; the leases then queued
 * ahead are given back, as they are whenever merges slow down.
 */
public final class LeasesAhead implements AttemptRunner.Pace {

    /** How much the latest merge weighs in the running averages. */
    static final double WEIGHT = 0.2;
    /** The shortest attempt reckoned with, so that a merge timed at nothing does not divide by zero. */
    private static final double LEAST_WORK_NANOS = 1_000;

    private final int workers;
    private final int most;
    private double workNanos = Double.NaN;
    private double storeNanos = Double.NaN;

    /**
     * @param perWorker the most leases held ahead per worker ({@code synthesis.leasesAheadPerWorker}): a crash
     *     leaves no more than these to expire; 0 holds none
     */
    public LeasesAhead(int workers, int perWorker) {
        if (workers < 1) {
            throw new IllegalArgumentException("a pool has at least one worker, got " + workers);
        }
        if (perWorker < 0) {
            throw new IllegalArgumentException("leases ahead per worker cannot be negative, got " + perWorker);
        }
        this.workers = workers;
        this.most = workers * perWorker;
    }

    /** The most this pool ever holds ahead. */
    public int most() {
        return most;
    }

    /**
     * Told as a merge is handed in, before its worker takes the next lease: a merge much slower than the last
     * ones, or a paid one, ends the lead at once, and that worker gives back the lease it would have started.
     */
    @Override
    public synchronized void made(long workNanos, boolean paid) {
        if (paid) {
            this.workNanos = Double.NaN;
            this.storeNanos = Double.NaN;
            return;
        }
        this.workNanos = averaged(this.workNanos, Math.max(LEAST_WORK_NANOS, workNanos));
    }

    @Override
    public synchronized void stored(long storeNanos) {
        if (!Double.isNaN(workNanos)) {
            this.storeNanos = averaged(this.storeNanos, Math.max(0, storeNanos));
        }
    }

    /** How many leases to hold ahead of the workers now: between none and {@link #most()}. */
    public synchronized int count() {
        if (Double.isNaN(workNanos) || Double.isNaN(storeNanos) || workNanos >= storeNanos) {
            return 0;
        }
        double finishedDuringAStore = workers * storeNanos / workNanos;
        return (int) Math.min(most, Math.floor(finishedDuringAStore));
    }

    private static double averaged(double average, double latest) {
        return Double.isNaN(average) ? latest : average + WEIGHT * (latest - average);
    }
}
