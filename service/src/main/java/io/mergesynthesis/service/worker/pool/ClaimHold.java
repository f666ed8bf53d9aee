package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.worker.attempt.AttemptRunner;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What holds this replica's claims back: for good once the pool stops, and for a while when the provider asked
 * the whole replica to wait. The workers learn of both here (as the {@link AttemptRunner.Pool} they run in);
 * the claim loop and the completer's refill claim nothing while either holds.
 */
public final class ClaimHold implements AttemptRunner.Pool {

    private final Ticker ticker;
    /** Until when, on the ticker, the provider asked this replica to wait. */
    private final AtomicLong pausedUntil;
    private volatile boolean stopping;

    public ClaimHold(Ticker ticker) {
        this.ticker = ticker;
        this.pausedUntil = new AtomicLong(ticker.nanos());
    }

    void stop() {
        stopping = true;
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    /**
     * The provider asked the whole replica to wait {@code retryAfter} (a rate limit, an overload, a refused
     * key): the claim loop and the completer's refill claim nothing until then. Leases already held are tried,
     * and deferred uncounted, as they come.
     */
    @Override
    public void pauseClaims(Duration retryAfter) {
        long until = ticker.nanos() + retryAfter.toNanos();
        pausedUntil.accumulateAndGet(until, Math::max);
    }

    /** How long the provider's pause still lasts, in nanoseconds; zero or less when none does. */
    long pausedFor() {
        return pausedUntil.get() - ticker.nanos();
    }

    /** True when a claim now would be worked on: the pool runs and no pause holds. */
    boolean claimsWanted() {
        return !stopping && pausedFor() <= 0;
    }
}
